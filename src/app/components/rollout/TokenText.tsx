// Generated text with each token shaded by how unlikely the sampler found it (log-probability on hover).
// Rows without per-token strings (reference dumps, older traces) fall back to plain text.

import { memo } from 'react';

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

/** Opacity of a token's shading: 0 for a certain token, rising with surprise, capped so text stays readable. */
export function shade(logprob: number): number {
  if (!Number.isFinite(logprob)) return 0.65;
  const p = Math.exp(Math.min(0, logprob));
  return Math.min(0.65, (1 - p) * 0.75);
}

function usable(tokens: unknown, logprobs: unknown): tokens is string[] {
  return Array.isArray(tokens) && Array.isArray(logprobs) && tokens.length > 0 && tokens.length === logprobs.length
    && tokens.every((t) => typeof t === 'string');
}

export const TokenText = memo(function TokenText(props: { text: string; tokens?: unknown; logprobs?: unknown }) {
  const { tokens, logprobs } = props;
  if (!usable(tokens, logprobs)) return <pre className="gen-text">{props.text}</pre>;
  const lps = logprobs as (number | null)[];
  const joined = tokens.join('');
  // The leading <think> block is dimmed: it is reasoning, not the action the environment sees.
  const open = joined.indexOf(THINK_OPEN);
  const close = open >= 0 ? joined.indexOf(THINK_CLOSE, open) : -1;
  const thinkEnd = open >= 0 ? (close >= 0 ? close + THINK_CLOSE.length : joined.length) : -1;
  // Tokens past the row's text (the stop string, eos) are part of the sample and its log-probs, but not of
  // what the rollout kept: shown struck-through-dim so the kept text still reads as one piece.
  const keep = joined.startsWith(props.text) ? props.text.length : joined.length;
  let at = 0;
  return (
    <pre className="gen-text tokens" data-testid="token-text">
      {tokens.flatMap((tok, i) => {
        const start = at;
        at += tok.length;
        const lp = lps[i] ?? -Infinity;
        const think = open >= 0 && start >= open && start < thinkEnd;
        const p = Number.isFinite(lp) ? Math.exp(lp) : 0;
        const title = `${JSON.stringify(tok)} · logprob ${Number.isFinite(lp) ? lp.toFixed(3) : '−∞'} · p ${p.toFixed(3)}`;
        const style = { backgroundColor: `rgba(255, 112, 67, ${shade(lp).toFixed(3)})` };
        const cls = `tok${think ? ' tok-think' : ''}`;
        const cut = Math.min(tok.length, Math.max(0, keep - start));
        const parts = [];
        if (cut > 0) parts.push(<span key={i} className={cls} style={style} title={title}>{tok.slice(0, cut)}</span>);
        if (cut < tok.length) parts.push(<span key={`${i}s`} className={`${cls} tok-stop`} style={style} title={`${title} · after the kept text`}>{tok.slice(cut)}</span>);
        return parts;
      })}
    </pre>
  );
});
