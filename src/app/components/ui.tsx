// Small building blocks shared by the pages. No UI library: a handful of plain elements styled in
// styles.css keeps the bundle small and the look dense.

import type { ReactNode } from 'react';
import { useApp } from '../store';
import { specOf, type Key } from '../urlState';

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

/** A control bound to one URL-serialised setting; the schema decides the input kind and bounds. */
export function Field(props: { k: Key; label: string; step?: number; title?: string; wide?: boolean; options?: { value: string; label?: string }[] }) {
  const value = useApp((s) => s.settings[props.k]);
  const set = useApp((s) => s.set);
  const spec = specOf(props.k);
  const id = `f-${props.k}`;
  let input: ReactNode;
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
        {spec.values.map((v) => <option key={v} value={v}>{v}</option>)}
      </select>
    );
  } else if (spec.kind === 'str') {
    input = <input id={id} type="text" value={String(value)} onChange={(e) => set(props.k, e.target.value as never)} />;
  } else {
    input = (
      <input
        id={id} type="number" value={Number(value)} min={spec.min} max={spec.max}
        step={props.step ?? (spec.kind === 'int' ? 1 : 'any')}
        onChange={(e) => {
          const v = Number(e.target.value);
          if (e.target.value !== '' && Number.isFinite(v)) set(props.k, Math.min(spec.max, Math.max(spec.min, v)) as never);
        }}
      />
    );
  }
  return (
    <label className={`field${props.wide ? ' wide' : ''}`} htmlFor={id} title={props.title}>
      <span className="field-label">{props.label}</span>
      {input}
    </label>
  );
}

export function fmt(v: number | null | undefined, digits = 4): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  if (v !== 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e5)) return v.toExponential(2);
  return Number(v.toFixed(digits)).toString();
}

export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}
