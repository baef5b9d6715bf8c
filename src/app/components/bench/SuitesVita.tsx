// VitaBench in the Benchmarks page's paper suites panel (Suites.tsx): the files it needs, and its report. The
// data is the user's own copy of the VitaBench files (../shared/data/vitabench), picked in the page and read in
// the worker; nothing is bundled. Success and the rubric fraction come from the judge model the user chose;
// without one the report says "not judged" and draws nothing.

import { useState } from 'react';
import { NOT_JUDGED, type VitaReport } from '../../../bench/suites/vita';
import { VITA_FILES, vitaFileNames } from '../../../envs/vitabench/data';
import type { VitaDomain } from '../../../envs/vitabench/data_model';
import type { SuiteFile, SuiteRunResult } from '../../../worker/suite-protocol';
import { fmt } from '../ui';

/** The files a domain still lacks among those picked (matched by name, as the worker matches them). */
export function vitaMissing(domain: VitaDomain, files: readonly SuiteFile[]): string[] {
  return Object.values(vitaFileNames(domain)).filter((n) => !files.some((f) => f.name === n));
}

/** Picks add to those already picked (the six files live in four folders); a file of the same name is replaced. */
export function addPicked(had: readonly SuiteFile[], got: readonly SuiteFile[]): SuiteFile[] {
  return [...had.filter((f) => !got.some((g) => g.name === f.name)), ...got];
}

export function VitaFilesNote(props: { domain: VitaDomain; files: readonly SuiteFile[] }) {
  const missing = vitaMissing(props.domain, props.files);
  return (
    <div className="muted bench-note" data-testid="suite-vita-files" data-missing={JSON.stringify(missing)}>
      VitaBench {props.domain} needs {Object.values(VITA_FILES(props.domain)).join(', ')} (paths under the data root, e.g. shared/data/vitabench; pick them in one or several goes).
      {' '}{missing.length ? <>Still missing: {missing.join(', ')}.</> : 'All picked.'}
    </div>
  );
}

const ci = (e: VitaReport['success']) => (e === NOT_JUDGED ? NOT_JUDGED : `${fmt(e.mean, 3)} [${fmt(e.ci95[0], 3)}, ${fmt(e.ci95[1], 3)}]`);

export function VitaReportRows(props: { report: VitaReport }) {
  const r = props.report;
  return <>
    <tr><td>success (Avg@{r.k}: the judge found every rubric met)</td><td data-testid="suite-accuracy">{ci(r.success)}</td></tr>
    <tr><td>fraction of rubrics met</td><td>{ci(r.rubric_fraction)}</td></tr>
    <tr><td>pass^k</td><td>{r.pass_hat_k === NOT_JUDGED ? NOT_JUDGED : Object.entries(r.pass_hat_k).map(([k, v]) => `${k}: ${fmt(v, 3)}`).join(' · ')}</td></tr>
    <tr><td>tasks</td><td>{r.n_tasks} ({r.domain}, from {r.offset})</td></tr>
    <tr><td>terminations</td><td>{Object.entries(r.terminations).map(([k, n]) => `${k} ${n}`).join(' · ')}</td></tr>
    <tr><td>tool calls · judge windows unparsed</td><td>{r.tool_calls} · {r.unparsed_judge_windows}</td></tr>
    <tr><td>generations (agent · user · judge)</td><td>{r.generations.agent} · {r.generations.user} · {r.generations.judge}</td></tr>
  </>;
}

export function VitaNotes(props: { report: VitaReport }) {
  const r = props.report;
  return (
    <div className="muted bench-note" data-testid="suite-vita-note">
      User simulator {r.user_model}; judge {r.judge_model ?? 'none'}.
      {r.judge_model ? ' Conversations cut by the step limit or three unusable agent outputs score 0 without asking the judge, as in VitaBench.'
        : ' Without a judge model VitaBench cannot score a conversation: success, rubric fraction and pass^k are "not judged", and nothing is drawn beside the paper.'}
    </div>
  );
}

export function VitaTasks(props: { run: SuiteRunResult }) {
  const r = props.run.report as VitaReport;
  const conversations = props.run.conversations ?? [];
  const [shown, setShown] = useState(0);
  const conv = conversations[Math.min(shown, conversations.length - 1)];
  return (
    <details>
      <summary>per task ({r.per_task?.length ?? 0}) and conversations</summary>
      <table className="rows" data-testid="suite-entries" data-json={JSON.stringify(r.per_task ?? [])}>
        <thead><tr><th>task</th><th>reward</th><th>rubrics met</th><th>terminations</th><th>steps</th><th>tool calls</th></tr></thead>
        <tbody>{(r.per_task ?? []).map((t) => (
          <tr key={t.task}><td>{t.task}</td><td>{t.rewards.map((x) => (x === null ? NOT_JUDGED : fmt(x, 3))).join(', ')}</td>
            <td>{t.rubric_fraction.map((x) => (x === null ? NOT_JUDGED : fmt(x, 3))).join(', ')}</td>
            <td>{t.terminations.join(', ')}</td><td>{t.steps.join(', ')}</td><td>{t.tool_calls.join(', ')}</td></tr>
        ))}</tbody>
      </table>
      {conv && <>
        <label className="field"><span>conversation (first sample)</span>
          <select data-testid="suite-vita-conversation-task" value={String(shown)} onChange={(e) => setShown(Number(e.target.value))}>
            {conversations.map((c, i) => <option key={c.task} value={i}>{c.task}</option>)}
          </select></label>
        <table className="rows" data-testid="suite-vita-conversation" data-task={conv.task} data-json={JSON.stringify(conv.lines)}>
          <thead><tr><th>#</th><th>role</th><th>message</th></tr></thead>
          <tbody>{conv.lines.map((l, i) => (
            <tr key={i} className={l.error ? 'warn-line' : undefined}><td>{i}</td><td>{l.role}</td><td className="clip" title={l.text}>{l.text}</td></tr>
          ))}</tbody>
        </table>
      </>}
    </details>
  );
}
