// The Benchmarks page's curves, all drawn from docs/results/ (results.ts fetches the files when this section first
// mounts): no worker call. Each chart keeps its selection in the URL (bc.*, bt.*, be.*,
// bp.*) and exports exactly what it draws (CSV) and how (PNG).

import { useEffect, useRef, useState } from 'react';
import { Bar, BarChart, CartesianGrid, ComposedChart, ErrorBar, ResponsiveContainer, Scatter, Tooltip, XAxis, YAxis } from 'recharts';
import type { BenchEvalResult } from '../../../worker/protocol';
import { MAIN_RESULTS, PAPER_SOURCE, REHEARSAL_N2, REHEARSAL_SWEEP_BFCL, TAU2_ABLATION, TAU2_TRAINING } from '../../paperNumbers';
import { useApp } from '../../store';
import { tickLabel } from '../charts';
import { Empty, Field, Panel } from '../ui';
import { ChartLegend, CurveChart, ExportButtons, PALETTE } from './CurveChart';
import { MARKERS, markerPath } from '../legend';
import { csvLine } from '../../../shared/csv';
import { ABLATIONS, ablationCurves, MECHANISM_FIDELITY, mechanismCorrelation, mechanismPoints, orderingRows, isStarter, defaultSweep, BUDGETS, budgetRows, CURVE_METRICS, EVALS, evalSuiteRows, loadResults, modelName, resultsLoaded, TTS, ttsHintLabel, ttsSweep, type AblationSummary, type CurveMetric, type MechanismFidelity, type EvalMetric, type Row, type TtsMetric } from './results';

const axis = { stroke: '#8a96aa', fontSize: 11, tickLine: false } as const;

const tooltip = { contentStyle: { background: '#141a24', border: '1px solid #2a3342', fontSize: 11 }, labelStyle: { color: '#9aa6b8' } };

/** The ablation summary the training curves, their verdict table and the mechanism scatter all describe (bc.file). */
const chosenAblation = (file: string) => ABLATIONS.find((a) => a.file === file) ?? ABLATIONS[0];

export function TrainingCurves() {
  const s = useApp((st) => st.settings);
  const chosen = chosenAblation(s['bc.file']);
  if (!chosen) {
    return <Empty>No ablation summary under docs/results/ yet: <code>npm run ablation -- --world files --model models/envace-small --config C --out runs/ablation</code> writes one.</Empty>;
  }
  const sum = chosen.data;
  const metric = s['bc.metric'] as CurveMetric;
  const { rows, series } = ablationCurves(sum, metric, s['bc.variant']);
  const spec = CURVE_METRICS.find((m) => m.key === metric)!;
  const cfg = sum.protocol.config ?? {};
  const variants = [...new Set(sum.runs.filter((r) => r.variant !== 'base').map((r) => r.variant))];
  return (
    <CurveChart testId="curve-training" name={`training-${chosen.file.replace(/\/summary\.json$|\.json$/, '').replace(/\//g, '-')}-${metric}`}
      title={`training curves: ${spec.label} against step`} x="step" xLabel="training step" rows={rows} series={series}
      yDomain={metric === 'reward' ? undefined : [0, 1]}
      controls={<div className="fields">
        <Field k="bc.file" label="ablation summary" wide options={ABLATIONS.map((a) => ({ value: a.file === ABLATIONS[0]!.file ? '' : a.file, label: `${a.file} (${modelName(a.data.protocol.model)}, ${a.data.protocol.world})` }))} />
        <Field k="bc.metric" label="metric" options={CURVE_METRICS.map((m) => ({ value: m.key, label: m.short }))} />
        <Field k="bc.variant" label="variant" options={[{ value: 'all' }, ...variants.map((v) => ({ value: v }))]} />
      </div>}
      empty={<Empty>No {spec.label} values in {chosen.file}{metric === 'inferenceF1' ? ' (no inference probes were scheduled in this run)' : ''}.</Empty>}
      note={<>
        {chosen.file}: {sum.protocol.model}, world {sum.protocol.world}, {sum.protocol.steps} steps, seeds {sum.protocol.seeds.join(', ')}
        {spec.from === 'report' ? `; the ablation's own evaluation on ${sum.protocol.n_tasks} held-out tasks: step 0 is the base model and step ${sum.protocol.steps} each run's end, paired by seed`
          : spec.from === 'evals' ? `; the trainer's scheduled evaluations on ${String(cfg.evalTasks ?? '?')} tasks` : '; one value per training step'}.
        Band: 95% t-interval over seeds (two seeds give t = 12.7, so wide bands are honest, not a bug); the held-out
        evaluation of every variant is in the table of {chosen.file.replace(/json$/, 'md')}.
        <VerdictTable sum={sum} metric={metric === 'checklist' ? 'checklist' : 'success'} />
      </>} />
  );
}

const VERDICT_CLASS: Record<string, string> = { reproduced: 'good', 'not reproduced': 'bad', inconclusive: 'muted' };
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;

/**
 * The paper's orderings as the summary's held-out evaluation judged them (paired bootstrap over seeds × tasks), each
 * with the minimum detectable effect of this design: an "inconclusive" next to an MDE of 0.10 says only that any
 * true difference is below about 0.10.
 */
function VerdictTable(props: { sum: AblationSummary; metric: 'success' | 'checklist' }) {
  const rows = orderingRows(props.sum, props.metric);
  if (!rows.length) return <div className="muted" data-testid="verdict-table-empty">This summary holds no verdicts on {props.metric} (its run did not finish).</div>;
  const p = props.sum.protocol;
  return (
    <table className="verdicts" data-testid="verdict-table">
      <caption>the paper's orderings (bold: its chain's links){rows.some((o) => o.question) ? ', then the playground\'s own questions,' : ''} on held-out {props.metric} ({p.n_tasks} tasks × k {p.k}, seeds {p.seeds.join(', ')}; 95% paired bootstrap over seeds × tasks; MDE at 80% power)</caption>
      <thead><tr><th>ordering</th><th>seeds</th><th>difference [95% CI]</th><th>verdict</th><th title="minimum detectable effect: the true difference this design declares at 95% with 80% power">MDE</th></tr></thead>
      <tbody>
        {rows.map((o) => (
          <tr key={`${o.a}>${o.b}`} data-testid="verdict-row">
            <td>{o.chainLink ? <b>{o.a} &gt; {o.b}</b> : o.question ? <>{o.a} &gt; {o.b} <span className="muted" data-testid="verdict-question">({o.question})</span></> : `${o.a} > ${o.b}`}</td>
            <td>{(o.seeds ?? p.seeds).join(', ')}</td>
            <td>{signed(o.diff.mean)} [{signed(o.diff.ci95[0])}, {signed(o.diff.ci95[1])}]</td>
            <td className={VERDICT_CLASS[o.verdict]}>{o.verdict}</td>
            <td>±{o.mde.toFixed(3)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The mechanism (issue 20 §2): per trained (variant, seed), the change in a rehearsal-fidelity measure against the
 * change in held-out success between its first and last scheduled evaluation, with the correlation across runs. The
 * summary is the training-curves chart's (bc.file), so the two always describe the same runs.
 */
export function MechanismScatter() {
  const s = useApp((st) => st.settings);
  const ref = useRef<HTMLDivElement>(null);
  const chosen = chosenAblation(s['bc.file']);
  if (!chosen) return null;
  const fid = s['bc.fid'] as MechanismFidelity;
  const spec = MECHANISM_FIDELITY.find((m) => m.key === fid)!;
  const points = mechanismPoints(chosen.data, fid);
  const corr = mechanismCorrelation(points);
  const variants = [...new Set(points.map((p) => p.variant))];
  const csv = () => ['variant,seed,from_step,to_step,d_fidelity,d_success', ...points.map((p) => csvLine([p.variant, p.seed, p.fromStep, p.toStep, p.dFidelity, p.dSuccess]))].join('\n') + '\n';
  return (
    <div className="bench-curve" data-testid="curve-mechanism" data-points={JSON.stringify(points)} data-correlation={JSON.stringify(corr)}>
      <div className="bench-curve-head">
        <span className="chart-title">mechanism: Δ {spec.label} against Δ held-out success, per run</span>
        {points.length > 0 && <ExportButtons name={`mechanism-${chosen.file.replace(/\/summary\.json$|\.json$/, '').replace(/\//g, '-')}-${fid}`} testId="curve-mechanism" chart={ref} csv={csv} />}
      </div>
      <div className="bench-curve-controls"><div className="fields"><Field k="bc.fid" label="fidelity measure" options={MECHANISM_FIDELITY.map((m) => ({ value: m.key, label: m.label }))} /></div></div>
      {points.length === 0 ? <Empty>No run in {chosen.file} has two scheduled evaluations with {spec.label} (set evalEvery and evalProbes in the config).</Empty> : (
        <div ref={ref}>
          <ResponsiveContainer width="100%" height={200} initialDimension={{ width: 420, height: 200 }}>
            <ComposedChart margin={{ top: 6, right: 12, bottom: 14, left: 0 }}>
              <CartesianGrid stroke="#1f2733" />
              <XAxis dataKey="dFidelity" type="number" domain={['auto', 'auto']} {...axis} tickFormatter={tickLabel}
                label={{ value: `Δ ${spec.label}`, position: 'insideBottom', offset: -8, fill: '#6b7689', fontSize: 10 }} />
              <YAxis dataKey="dSuccess" type="number" domain={['auto', 'auto']} {...axis} width={48} tickFormatter={tickLabel} />
              <Tooltip {...tooltip} formatter={(v: unknown) => tickLabel(Number(v))} />
              {variants.map((v, i) => (
                <Scatter key={v} name={v} data={points.filter((p) => p.variant === v)} fill={PALETTE[i % PALETTE.length]} isAnimationActive={false}
                  shape={(q: { cx?: number; cy?: number }) => <path d={markerPath(MARKERS[i % MARKERS.length]!, q.cx ?? 0, q.cy ?? 0, 4)} fill={PALETTE[i % PALETTE.length]} stroke={PALETTE[i % PALETTE.length]} strokeWidth={1.3} />} />
              ))}
            </ComposedChart>
          </ResponsiveContainer>
          <ChartLegend testId="curve-mechanism-legend" entries={variants.map((v, i) => ({ label: v, color: PALETTE[i % PALETTE.length]!, marker: MARKERS[i % MARKERS.length], kind: 'point' as const }))} />
        </div>
      )}
      <div className="muted bench-note" data-testid="mechanism-note">
        {chosen.file}: {points.length > 0 && points.every((p) => p.source === 'measured')
          ? `the starting model against each trained run's end, measured alike (npm run mechanism); Δ success is the held-out evaluation (${chosen.data.protocol.n_tasks} tasks) against the base model of the same seed`
          : points.some((p) => p.source === 'measured') ? "measured runs (npm run mechanism: held-out Δ success against the same seed's base) and, for the rest, first vs last scheduled evaluation"
            : 'first vs last scheduled evaluation of each trained run'} ({points.length} run{points.length === 1 ? '' : 's'}).{' '}
        {corr ? <>Correlation across runs r = <b>{corr.r.toFixed(2)}</b> [{corr.ci95[0].toFixed(2)}, {corr.ci95[1].toFixed(2)}] (95% Fisher-z interval, n = {corr.n}){corr.ci95[0] > 0 ? ': fidelity gains go with success gains across these runs (arms pooled: a difference between arms alone can do this).' : corr.ci95[1] < 0 ? ': fidelity gains go with success losses across these runs (arms pooled).' : ': no link shown at this scale (the interval includes 0).'}</>
          : 'Too few runs (or no spread) to state a correlation.'}
      </div>
    </div>
  );
}

export function RehearsalSweep() {
  const s = useApp((st) => st.settings);
  // Opens on the largest full sweep of a policy trained with memories in its prompts (issue 20 §3: without that
  // training the memory is out of distribution and success collapses), else a competent starter's full sweep
  // (issue 24), else the first full sweep.
  const fallback = defaultSweep(TTS);
  const chosen = TTS.find((t) => t.file === s['bt.file']) ?? fallback;
  if (!chosen) return <Empty>No rehearsal sweep under docs/results/ yet: <code>npm run tts -- --model models/envace-small --world files --n 0,1,2,3,4 --strategy parallel,sequential --json</code>.</Empty>;
  const t = chosen.data;
  const { rows, series } = ttsSweep(t, s['bt.metric'] as TtsMetric, s['bt.mem']);
  const models = [...new Set(TTS.map((x) => modelName(x.data.model)))];
  return (
    <CurveChart testId="curve-rehearsal" name={`rehearsal-${chosen.file.replace(/\.json$/, '')}-${s['bt.metric']}-${s['bt.mem']}`}
      title={`private rehearsal: ${s['bt.metric']} against N (attempts per user turn)`} x="n" xLabel="N (imagined attempts)" rows={rows} series={series} yDomain={[0, 'auto' as unknown as number]}
      controls={<div className="fields">
        <Field k="bt.file" label="sweep" wide options={TTS.map((x) => ({ value: x === fallback ? '' : x.file, label: `${x.file} (memory ≤ ${x.data.memoryTokens} tokens · ${ttsHintLabel(x.data)})` }))} />
        <Field k="bt.metric" label="metric" />
        <Field k="bt.mem" label="memory" title="full: attempts + self-evaluations condensed; best-calls: the best attempt's calls alone (src/tts/README.md)" />
      </div>}
      note={<>
        {modelName(t.model)} on {t.world}, {t.tasksDone} held-out tasks, k = {t.protocol.k} at T {t.protocol.temperature}, top-p {t.protocol.topP}, seed {t.protocol.seed};
        {' '}{t.assessor === 'rules' ? 'rule-based self-evaluation' : `${t.assessor} self-evaluation`}; 95% bootstrap over tasks. N = 0 is the same no-rehearsal run for every line.
        {t.memoryTrained ? ' This policy was trained with rehearsal memories in its Act prompts (npm run sft -- --memory-pool).' : ' This policy never saw a memory in training: the memory is out of distribution for it.'}
        <div data-testid="rehearsal-policies"><strong>Base vs EnvACE-trained policy:</strong> {models.length < 2
          ? `only the base policy (${models.join(', ')}) has a sweep; no EnvACE-trained policy exists yet, so the comparison the paper makes (EnvACE policy gains, base does not) cannot be drawn.`
          : `sweeps exist for ${models.join(', ')}; pick the file to switch policy.`}</div>
      </>} />
  );
}

export function BudgetSweep() {
  const s = useApp((st) => st.settings);
  const b = BUDGETS.find((x) => x.file === s['bb.file']) ?? BUDGETS[0];
  if (!b) {
    return (
      <div className="bench-curve" data-testid="curve-budget-empty">
        <div className="chart-title">success against the real-environment budget</div>
        <Empty>
          No budget sweep result under docs/results/ yet. The sweep (a fraction p of tool calls executed in the real
          environment during training; p = 0 is EnvACE, p = 1 GRPO on the real environment) is produced by
          {' '}<code>npm run ablation -- --budget 0,0.1,0.25,0.5,1 --seeds 3</code>; commit its summary.json under
          docs/results/ and it is drawn here. Nothing is shown until it is measured.
        </Empty>
      </div>
    );
  }
  const metric = s['bb.metric'] as 'success' | 'checklist';
  const x = s['bb.x'] as 'real_calls' | 'p';
  const { rows, series } = budgetRows(b.sweep, metric, x);
  return (
    <CurveChart testId="curve-budget" name={`budget-${b.file.replace(/\/summary\.json$/, '').replace(/\//g, '-')}-${metric}-${x}`}
      title={`held-out ${metric} against ${x === 'p' ? 'the real-call fraction p' : 'real calls spent in training'}`}
      x={x} xLabel={x === 'p' ? 'p (share of training tool calls executed for real)' : 'real tool calls in training (mean over seeds)'}
      rows={rows} series={series} yDomain={[0, 1]}
      controls={<div className="fields">
        <Field k="bb.file" label="sweep" wide options={BUDGETS.map((x2) => ({ value: x2 === BUDGETS[0] ? '' : x2.file, label: x2.file }))} />
        <Field k="bb.metric" label="metric" />
        <Field k="bb.x" label="x axis" />
      </div>}
      note={<>
        {b.file}: {b.sweep.label}, p ∈ {'{'}{b.sweep.points.map((p) => p.real_fraction).join(', ')}{'}'}, seeds {b.sweep.seeds.join(', ')}, {b.sweep.steps} steps;
        evaluation {b.protocol.n_tasks} held-out {b.protocol.world} tasks, Avg@{b.protocol.k}; 95% bootstrap over seeds × tasks.
      </>} />
  );
}

// ---- evaluation suites, with the user's own run ---------------------------------------------------------------

// The paper's suites run in the panel above (components/bench/Suites.tsx) and with `npm run eval -- --suite`.
const PAPER_SUITES = [
  { suite: 'BFCL-v4 multi-turn (any category file)', how: 'Paper suites panel above (pick the files), or npm run eval -- --suite bfcl --questions FILE --answers FILE --model DIR|HF|ground-truth' },
  { suite: 'τ²-bench (retail, mock)', how: 'Paper suites panel above (pick the domain files), or npm run eval -- --suite tau2 --domain DIR --model … --user scripted|--user-model …' },
  { suite: 'VitaBench (delivery, in-store)', how: 'Paper suites panel above (pick the domain\'s files; a judge model, or "not judged"), or npm run eval -- --suite vita --domain delivery|instore --model … --user-model … [--judge-model …]' },
];

export function EvalSuites(props: { yourRun: BenchEvalResult | null; yourRunStale: boolean }) {
  const metric = useApp((st) => st.settings['be.metric']) as EvalMetric;
  const ref = useRef<HTMLDivElement>(null);
  const rows: Row[] = evalSuiteRows(EVALS, metric);
  if (props.yourRun) {
    const r = props.yourRun;
    const est = r.estimates[metric];
    rows.push({
      label: `your run: ${r.model.replace(/^envace-/, '')} ${r.request.world} k${r.request.k}${props.yourRunStale ? ' (stale)' : ''}`,
      file: 'this browser', yours: est.mean, yours_band: est.ci95, yours_err: [est.mean - est.ci95[0], est.ci95[1] - est.mean],
    });
  }
  const csv = () => [csvLine(['suite', 'file', 'series', 'metric', 'mean', 'ci_lo', 'ci_hi']), ...rows.map((r) => {
    const k = r.yours !== undefined ? 'yours' : 'shipped';
    const band = r[`${k}_band`] as [number, number];
    return csvLine([r.label, r.file, k, metric, r[k], band[0], band[1]]);
  })].join('\n') + '\n';
  return (
    <div className="bench-curve" data-testid="curve-evals" data-rows={JSON.stringify(rows)}>
      <div className="bench-curve-head">
        <span className="chart-title">evaluation suites: {metric} with 95% intervals (bootstrap over tasks)</span>
        <ExportButtons name={`evals-${metric}`} testId="curve-evals" chart={ref} csv={csv} />
      </div>
      <div className="bench-curve-controls"><div className="fields"><Field k="be.metric" label="metric" /></div></div>
      <div ref={ref}>
        {/* One row per result, labels on the left (issue 20 §4: seventeen labels under a 400 px axis overlapped). */}
        <ResponsiveContainer width="100%" height={36 + 22 * rows.length} initialDimension={{ width: 420, height: 36 + 22 * rows.length }}>
          <ComposedChart data={rows} layout="vertical" margin={{ top: 6, right: 16, bottom: 4, left: 4 }}>
            <CartesianGrid stroke="#1f2733" />
            <YAxis dataKey="label" type="category" {...axis} interval={0} width={170} tick={{ fontSize: 10, fill: '#8a96aa' }} />
            <XAxis type="number" {...axis} domain={[0, 1]} tickFormatter={tickLabel} />
            <Tooltip {...tooltip} formatter={(v: unknown) => (Array.isArray(v) ? '' : tickLabel(Number(v)))} />
            {/* Each group its own data, so a group draws a symbol only where it has a value. */}
            <Scatter data={rows.filter((r) => r.shipped !== undefined)} dataKey="shipped" name="shipped results (docs/results/eval)" fill={PALETTE[0]} isAnimationActive={false}>
              <ErrorBar dataKey="shipped_err" direction="x" width={6} stroke={PALETTE[0]} />
            </Scatter>
            {/* Only with a run: a Scatter given no rows falls back to the chart's rows and would draw them all. */}
            {props.yourRun && (<Scatter data={rows.filter((r) => r.yours !== undefined)} dataKey="yours" name="your run" fill={PALETTE[4]} shape="diamond" legendType="diamond" isAnimationActive={false}>
              <ErrorBar dataKey="yours_err" direction="x" width={6} stroke={PALETTE[4]} />
            </Scatter>)}
          </ComposedChart>
        </ResponsiveContainer>
        <ChartLegend testId="curve-evals-legend" entries={[
          { label: 'shipped results (docs/results/eval), 95% interval', color: PALETTE[0]!, marker: 'circle', kind: 'point' },
          ...(props.yourRun ? [{ label: 'your run', color: PALETTE[4]!, marker: 'diamond' as const, kind: 'point' as const }] : []),
        ]} />
      </div>
      {!props.yourRun && <div className="muted bench-note" data-testid="your-run-hint">Run an evaluation above and it is added here as "your run".</div>}
      <table className="rows" data-testid="suites-status">
        <thead><tr><th>paper suite</th><th>evaluated by</th></tr></thead>
        <tbody>{PAPER_SUITES.map((n) => <tr key={n.suite}><td>{n.suite}</td><td>{n.how}</td></tr>)}</tbody>
      </table>
    </div>
  );
}

// ---- the paper's numbers ---------------------------------------------------------------------------------------

const PAPER_TABLES = {
  main: { title: 'main results (%)', x: 'model', rows: MAIN_RESULTS, series: [{ key: 'bfcl', label: 'BFCL-v4' }, { key: 'tau2', label: 'τ²-Bench' }, { key: 'vita', label: 'VitaBench' }, { key: 'overall', label: 'Overall' }] },
  ablation: { title: 'ablation on τ²-Bench (%)', x: 'variant', rows: TAU2_ABLATION, series: [{ key: 'q8b', label: 'Qwen3-8B' }, { key: 'q1_7b', label: 'Qwen3-1.7B' }] },
  rehearsal: { title: 'test-time rehearsal at N = 2 (%)', x: 'setting', rows: REHEARSAL_N2, series: [{ key: 'tau2', label: 'τ²-Bench' }, { key: 'bfclMulti', label: 'BFCL multi-turn' }, { key: 'overall', label: 'Overall' }] },
  sweep: { title: 'rehearsal budget sweep, BFCL multi-turn, EnvACE parallel (%)', x: 'n', rows: REHEARSAL_SWEEP_BFCL, series: [{ key: 'envaceParallel', label: 'EnvACE parallel' }] },
} as const;

export function PaperReference() {
  const which = useApp((st) => st.settings['bp.table']) as keyof typeof PAPER_TABLES;
  const t = PAPER_TABLES[which];
  const ref = useRef<HTMLDivElement>(null);
  const rows = t.rows as readonly Record<string, unknown>[];
  const csv = () => [csvLine([t.x, ...t.series.map((s) => s.key)]), ...rows.map((r) => csvLine([r[t.x], ...t.series.map((s) => r[s.key])]))].join('\n') + '\n';
  return (
    <div className="bench-curve" data-testid="paper-reference">
      <div className="bench-curve-head">
        <span className="chart-title">paper reference: {t.title}</span>
        <ExportButtons name={`paper-${which}`} testId="paper-reference" chart={ref} csv={csv} />
      </div>
      <div className="bench-curve-controls"><div className="fields"><Field k="bp.table" label="table" /></div></div>
      <div className="warn-line" data-testid="paper-scale">
        Different scale: Qwen3-1.7B / 8B policies on the real BFCL-v4, τ²-Bench and VitaBench suites. Our policies are
        millions of parameters on built-in worlds; these numbers are for orientation, not a series to compare with ours.
      </div>
      <div ref={ref}>
        <ResponsiveContainer width="100%" height={230} initialDimension={{ width: 420, height: 230 }}>
          <BarChart data={rows as Record<string, unknown>[]} margin={{ top: 6, right: 12, bottom: 4, left: 0 }}>
            <CartesianGrid stroke="#1f2733" />
            {/* Slanted labels: twelve model names side by side overlapped when level. */}
            <XAxis dataKey={t.x} {...axis} interval={0} angle={-30} textAnchor="end" height={64} tick={{ fontSize: 10, fill: '#8a96aa' }} />
            <YAxis {...axis} width={40} tickFormatter={tickLabel} />
            <Tooltip {...tooltip} cursor={{ fill: '#1f2733' }} />
            {t.series.map((s, i) => <Bar key={s.key} dataKey={s.key} name={s.label} fill={PALETTE[i % PALETTE.length]} isAnimationActive={false} />)}
          </BarChart>
        </ResponsiveContainer>
        <ChartLegend testId="paper-reference-legend" entries={t.series.map((s, i) => ({ label: s.label, color: PALETTE[i % PALETTE.length]!, kind: 'bar' as const }))} />
      </div>
      <div className="muted bench-note">
        {PAPER_SOURCE}. {which === 'sweep' && 'Every setting peaks at N = 2 and drops at N = 3; the summary gives only these two values. '}
        {which === 'ablation' && `Training dynamics: τ² ${TAU2_TRAINING.map((p) => `${p.tau2} at step ${p.step}`).join(', ')}. The 1.7B base is not given in the ablation. `}
        {which === 'rehearsal' && 'The paper finds that rehearsal by the EnvACE policy helps and by the base policy does not. '}
      </div>
    </div>
  );
}

export function CurvesSection(props: { yourRun: BenchEvalResult | null; yourRunStale: boolean }) {
  const charts = [
    <TrainingCurves key="training" />,
    <MechanismScatter key="mechanism" />,
    <RehearsalSweep key="rehearsal" />,
    <BudgetSweep key="budget" />,
    <EvalSuites key="evals" yourRun={props.yourRun} yourRunStale={props.yourRunStale} />,
    <PaperReference key="paper" />,
  ];
  // The results JSON is fetched when the section first mounts (results.ts), not carried by the page's script.
  const [ready, setReady] = useState(resultsLoaded);
  useEffect(() => { if (!ready) void loadResults().then(() => setReady(true)); }, [ready]);
  // One chart per frame: recharts builds a store per chart, and five at once hold the main thread for a second
  // on a loaded machine; this way the first curve is painted after one chart's work, the rest follow.
  const [shown, setShown] = useState(1);
  useEffect(() => {
    if (!ready || shown >= charts.length) return;
    const id = requestAnimationFrame(() => setShown((n) => n + 1));
    return () => cancelAnimationFrame(id);
  }, [ready, shown, charts.length]);
  return (
    <Panel title="Curves (shipped results, drawn without computing)" className="bench-curves" testId="bench-curves">
      <div className="bench-curves-grid">
        {charts.map((c, i) => (ready && i < shown ? c : <div key={c.key} className="bench-curve bench-curve-pending" />))}
      </div>
    </Panel>
  );
}
