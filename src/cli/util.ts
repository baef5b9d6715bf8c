// Small shared helpers for the Node entry points: flags and a progress bar with ETA on stderr.

const argv = process.argv.slice(2);

/** Value of --name VALUE or --name=VALUE. */
export function arg(name: string, args: string[] = argv): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === `--${name}`) return args[i + 1];
    if (args[i].startsWith(`--${name}=`)) return args[i].slice(name.length + 3);
  }
  return undefined;
}

export function flag(name: string, args: string[] = argv): boolean {
  return args.includes(`--${name}`);
}

function fmtTime(s: number): string {
  if (!Number.isFinite(s)) return '?';
  const m = Math.floor(s / 60), r = Math.round(s % 60);
  return m > 0 ? `${m}m${String(r).padStart(2, '0')}s` : `${r}s`;
}

/** A progress bar redrawn in place on a terminal; otherwise a line every 5% or 30 s (CI logs stay short). */
export function progress(total: number, label: string, stream: NodeJS.WriteStream = process.stderr) {
  const t0 = Date.now();
  let n = 0, lastPct = -1, lastAt = 0;
  const draw = (extra: string) => {
    const frac = total > 0 ? n / total : 1;
    const el = (Date.now() - t0) / 1000;
    const eta = n > 0 ? (el / n) * (total - n) : NaN;
    const w = 24, full = Math.round(frac * w);
    const line = `${label} [${'#'.repeat(full)}${'.'.repeat(w - full)}] ${n}/${total} ${(100 * frac).toFixed(0)}% ${fmtTime(el)} eta ${fmtTime(eta)} ${extra}`;
    if (stream.isTTY) stream.write(`\r${line.slice(0, (stream.columns ?? 120) - 1)}\x1b[K`);
    else {
      const pct = Math.floor(frac * 20);
      if (pct !== lastPct || Date.now() - lastAt > 30_000) { lastPct = pct; lastAt = Date.now(); stream.write(line + '\n'); }
    }
  };
  return {
    tick(extra = '') { n++; draw(extra); },
    done(extra = '') { if (stream.isTTY) { draw(extra); stream.write('\n'); } },
  };
}
