// What a Rollout-page request means as a rollout, in one place: the worker (engine-bridge.ts) and the Node
// script that writes the page's shipped demo trace (src/cli/demo-trace.ts) build the same config from the
// same request, so "Run" in the page recomputes exactly the trace the page opened on.
//
// Also: the checklist verdict the real environment would have given. In the imagined modes the judge reads
// the imagined results (as in training and in the reference code); the shadow environment's answers are on
// the rows, so the same judge re-run on them says which ticks rest on imagination.

import { profileFromConfig, rolloutSettings } from '../agent/profile';
import { parseAct } from '../agent/protocol';
import { DEFAULT_LIMITS, type RolloutConfig } from '../agent/rollout';
import type { Trajectory } from '../agent/types';
import type { TextGenerator } from '../engine/generator';
import { judgeEpisode, type AssistantStep } from '../envs/judges';
import type { Task, Verdict } from '../envs/types';
import type { RolloutRequest } from './protocol';

export interface BuiltRollout {
  cfg: RolloutConfig;
  /** The profile's generation cap (a stepping cap never exceeds it). */
  naturalCap: number;
  /** Upper bound on sampler rounds: an Act round, then (imagined modes) one Rehearse round per assistant turn. */
  maxRounds: number;
}

export function buildRolloutConfig(rawConfig: Record<string, unknown>, req: RolloutRequest, policy: TextGenerator, cap: number | null = null): BuiltRollout {
  // The model's prompt profile (format, prompt options) as the trainer uses it; the page's knobs override.
  const settings = rolloutSettings(profileFromConfig(rawConfig));
  const sampling = {
    temperature: req.temperature, maxNewTokens: req.maxNewTokens,
    ...(req.topP !== undefined ? { topP: req.topP } : {}), ...(req.topK !== undefined ? { topK: req.topK } : {}),
  };
  const naturalCap = settings.limits?.maxGenerations ?? DEFAULT_LIMITS.maxGenerations;
  const maxGenerations = cap === null ? naturalCap : Math.min(cap, naturalCap);
  const maxAssistantTurns = req.maxTurns;
  const cfg: RolloutConfig = {
    ...settings,
    mode: req.mode,
    policy,
    simulator: req.mode === 'simulator' ? policy : undefined,
    seed: req.seed,
    act: { ...settings.act, ...sampling },
    rehearse: { ...settings.rehearse, ...sampling },
    limits: { ...settings.limits, maxAssistantTurns, maxGenerations },
  };
  const perTurn = req.mode === 'real' ? 1 : 2;
  const turns = Math.min(maxAssistantTurns, settings.limits?.maxAssistantTurns ?? maxAssistantTurns);
  return { cfg, naturalCap, maxRounds: Math.max(1, Math.min(maxGenerations, perTurn * turns)) };
}

/**
 * The episode verdict with every rehearsed result replaced by the shadow environment's answer to the same
 * call. Only the user turns the episode finished are judged (as the rollout judges them); the outcome (a
 * state check on the shadow environment) is already real and is kept. Undefined in real mode (nothing was
 * imagined) or when no row carries a real result.
 */
export function realVerdictOf(task: Task, t: Trajectory): Verdict | undefined {
  if (t.mode === 'real' || !t.verdict) return undefined;
  if (!t.rows.some((r) => r.role === 'rehearse' && r.real)) return undefined;
  const turns: AssistantStep[][] = [];
  const userTurns = Math.max(0, ...t.rows.map((r) => r.turn + 1));
  for (let u = 0; u < userTurns; u++) {
    const steps: AssistantStep[] = [];
    let ended = false;
    for (const a of t.rows.filter((r) => r.role === 'act' && r.turn === u)) {
      if (a.error) continue;
      const calls = a.calls ?? (a.call ? [a.call] : []);
      if (calls.length === 0) {
        const p = parseAct(a.text);
        steps.push({ reply: p.ok ? p.content : a.text });
        ended = true;
        break;
      }
      const kids = t.rows.filter((r) => r.role === 'rehearse' && r.parent === a.step);
      // Calls answered only in part were never shown to the policy (the episode stopped first).
      if (kids.length < calls.length) continue;
      calls.forEach((c, i) => {
        const k = kids.find((r) => (r.callIndex ?? 0) === i);
        if (k?.real) steps.push({ call: c, result: k.real });
      });
    }
    if (!ended) break;
    turns.push(steps);
  }
  const v = judgeEpisode(task, turns);
  // Turns the rollout never finished are reported the same way in both verdicts.
  v.terminatedEarly = v.terminatedEarly || t.verdict.terminatedEarly;
  if (t.verdict.outcome) v.outcome = t.verdict.outcome;
  return v;
}
