// Small building blocks shared by the pages. No UI library: a handful of plain elements styled in
// styles.css keeps the bundle small and the look dense.

import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useApp } from '../store';
import type { Progress } from '../../worker/protocol';
import { check, rangeText, specOf, type Key } from '../urlState';
import { GLOSSARY, type GlossaryTerm } from '../glossary';
import { FIELD_HELP } from '../fieldHelp';

export function Panel(props: { title: string; right?: ReactNode; children: ReactNode; className?: string; testId?: string }) {
  return (
    <section className={`panel ${props.className ?? ''}`} data-testid={props.testId}>
      <header className="panel-head"><span>{props.title}</span>{props.right}</header>
      <div className="panel-body">{props.children}</div>
    </section>
  );
}

/** The one way the UI says a capability is missing: explicit, with the reason from the worker. */
export function NotAvailable(props: { reason?: string; what?: string }) {
  return (
    <div className="not-available" role="status" data-testid="not-available">
      <strong>not available yet</strong>{props.what ? ` (${props.what})` : ''}: {props.reason ?? 'unknown reason'}
    </div>
  );
}

export function ErrorBox(props: { error: string | null }) {
  if (!props.error) return null;
  return <pre className="error-box" role="alert">{props.error}</pre>;
}

export function Empty(props: { children: ReactNode }) {
  return <div className="empty">{props.children}</div>;
}

/**
 * The one numeric input of the app. It keeps whatever is being typed (an exponent like 3e-4, an empty
 * field, a lone minus) and commits only on blur or Enter; a value outside [min, max], not a number, or not
 * whole where a whole number is needed is refused visibly (the field keeps the text, marked, and says why
 * and which value stays in force), never clamped. Escape restores the value in force.
 */
export function NumberInput(props: {
  id?: string; value: number; min: number; max: number; integer?: boolean; onCommit: (v: number) => void;
  title?: string; testId?: string; allowEmpty?: boolean; emptyLabel?: string; disabled?: boolean;
}) {
  const { value, min, max, integer } = props;
  const [text, setText] = useState(() => (Number.isFinite(value) ? String(value) : ''));
  const [refused, setRefused] = useState<string | null>(null);
  const editing = useRef(false);
  // Follow outside changes (URL, presets) unless the user is mid-edit or looking at a refusal.
  useEffect(() => {
    if (!editing.current && !refused) setText(Number.isFinite(value) ? String(value) : '');
  }, [value]);
  const spec = integer ? { kind: 'int' as const, def: 0, min, max } : { kind: 'num' as const, def: 0, min, max };
  const commit = () => {
    editing.current = false;
    if (props.allowEmpty && text.trim() === '') { setRefused(null); return; }
    const r = check(spec, text);
    if (!r.ok) { setRefused(`refused “${echo(text)}”: ${r.why}; ${fmtKept(value)} stays`); return; }
    setRefused(null);
    setText(String(r.value));
    if (r.value !== value) props.onCommit(r.value as number);
  };
  return (
    <span className="num-input">
      <input
        id={props.id} type="text" inputMode={integer ? 'numeric' : 'decimal'} value={text} disabled={props.disabled}
        className={refused ? 'invalid' : undefined} aria-invalid={refused ? true : undefined}
        title={props.title ?? `${rangeText(spec)}; Enter or leaving the field applies it`}
        data-testid={props.testId} data-range={rangeText(spec)}
        onChange={(e) => { editing.current = true; setText(e.target.value); }}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') commit();
          if (e.key === 'Escape') { editing.current = false; setRefused(null); setText(String(value)); }
        }}
      />
      {refused && <span className="field-error" role="alert" data-testid={props.testId ? `${props.testId}-refused` : 'refused'}>{refused}</span>}
    </span>
  );
}

function fmtKept(v: number): string { return Number.isFinite(v) ? String(v) : 'the previous value'; }

/** A refused text as the refusal quotes it: a pasted 5,000-digit value is named by its start and length. */
export function echo(text: string): string {
  return text.length <= 24 ? text : `${text.slice(0, 16)}… (${text.length} characters)`;
}

/** A control bound to one URL-serialised setting; the schema decides the input kind and bounds. */
export function Field(props: { k: Key; label: string; step?: number; title?: string; wide?: boolean; options?: { value: string; label?: string }[] }) {
  const value = useApp((s) => s.settings[props.k]);
  const set = useApp((s) => s.set);
  const spec = specOf(props.k);
  const id = `f-${props.k}`;
  let input: ReactNode;
  let range = '';
  if (props.options && spec.kind === 'str') {
    // Known choices (worlds, tasks, models) for a free string setting; an unknown value from a URL stays
    // visible instead of being silently replaced.
    const opts = props.options.some((o) => o.value === value) ? props.options : [...props.options, { value: String(value), label: `${String(value)} (unknown)` }];
    input = (
      <select id={id} value={String(value)} onChange={(e) => set(props.k, e.target.value as never)}>
        {opts.map((o) => <option key={o.value} value={o.value}>{o.label ?? o.value}</option>)}
      </select>
    );
  } else if (spec.kind === 'enum') {
    input = (
      <select id={id} value={String(value)} onChange={(e) => set(props.k, e.target.value as never)}>
        {spec.values.map((v) => <option key={v} value={v}>{props.options?.find((o) => o.value === v)?.label ?? v}</option>)}
      </select>
    );
  } else if (spec.kind === 'str') {
    input = <input id={id} type="text" value={String(value)} onChange={(e) => set(props.k, e.target.value as never)} />;
  } else {
    range = rangeText(spec);
    input = (
      <NumberInput id={id} testId={id} value={Number(value)} min={spec.min} max={spec.max} integer={spec.kind === 'int'}
        onCommit={(v) => set(props.k, v as never)} />
    );
  }
  return (
    <label className={`field${props.wide ? ' wide' : ''}`} htmlFor={id} title={props.title ?? FIELD_HELP[props.k]}>
      <span className="field-label">{props.label}{range && <span className="field-range"> · {range}</span>}</span>
      {input}
    </label>
  );
}

export function fmt(v: number | null | undefined, digits = 4): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  // Float residue of a mean that is 0 by construction (±1e-17) is shown as the 0 it is.
  if (Math.abs(v) < 1e-12) return '0';
  if (v !== 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e5)) return v.toExponential(2);
  return Number(v.toFixed(digits)).toString();
}

/** "1 generation", "2 generations", "0 tasks": a count with its noun in the right number. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

export function fmtDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  const s = ms / 1000;
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** Progress of a worker call: counts, elapsed time and the ETA the worker estimated. */
export function ProgressBar(props: { progress: Progress | null; label: string; testId?: string }) {
  const p = props.progress;
  const frac = p && p.total > 0 ? Math.min(1, p.done / p.total) : 0;
  return (
    <div className="progress" data-testid={props.testId} role="progressbar" aria-valuemin={0} aria-valuemax={p?.total ?? 0} aria-valuenow={p?.done ?? 0}>
      <div className="progress-track"><div className="progress-fill" style={{ width: `${(100 * frac).toFixed(1)}%` }} /></div>
      <div className="progress-text">
        <span data-testid={props.testId ? `${props.testId}-counts` : undefined}>
          {props.label}{p ? ` · ${p.unit} ${p.done} of ${p.etaIsBound ? 'at most ' : ''}${p.total}${p.detail ? ` · ${p.detail}` : ''}` : ' · starting…'}
        </span>
        <span>{p ? `${fmtDuration(p.elapsedMs)} elapsed · ETA ${p.etaMs === null ? '–' : `${p.etaIsBound ? '≤ ' : ''}${fmtDuration(p.etaMs)}`}` : ''}</span>
      </div>
    </div>
  );
}

/** A metric's name with its one-line definition on hover (the glossary holds the definitions). */
export function Metric(props: { name: keyof typeof METRICS; label?: string }) {
  return <span className="metric term" title={METRICS[props.name]} data-metric={props.name} data-term={props.name}>{props.label ?? props.name}</span>;
}

/** A term of the glossary (Act, Rehearse, fidelity, …) with its definition on hover. */
export function Term(props: { name: GlossaryTerm; label?: ReactNode }) {
  return <span className="term" title={GLOSSARY[props.name]} data-term={props.name}>{props.label ?? props.name}</span>;
}

/** "n/a" where a role or a measure does not exist (an Act-only variant's Rehearse reward): never a 0. */
export function NA(props: { why: string }) {
  return <span className="na" title={`${GLOSSARY['n/a']}. ${props.why}`} data-testid="na">n/a</span>;
}

/** One-line definitions of every metric the pages show (hover text): the glossary's entries. */
export const METRICS = GLOSSARY;
