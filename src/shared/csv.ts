// The one CSV writer of the app (issue 21): every export (Train metrics, Benchmarks rows, the curves' drawn points,
// the paper tables) goes through csvCell. RFC 4180 quoting (a cell holding `"`, `,`, `\n` or `\r` is quoted, `"`
// doubled), and spreadsheet formulas neutralised: a text cell that starts with `=`, `+`, `-`, `@`, a tab or a
// carriage return would be run as a formula by Excel, LibreOffice or Sheets (task ids, labels and notes can come
// from data), so it gets a leading `'` and is quoted (OWASP "CSV injection"). Numbers stay numbers: a negative
// number, or text that is exactly a plain decimal number such as "-0.5", is not a formula and is written as is.

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** One cell: null/undefined empty, an array's items space-separated, other objects as JSON. */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' ? String(v)
    : Array.isArray(v) ? v.map((x) => (x === null || x === undefined ? '' : typeof x === 'object' ? JSON.stringify(x) : String(x))).join(' ')
      : typeof v === 'object' ? JSON.stringify(v) : String(v);
  const formula = typeof v !== 'number' && FORMULA_START.test(s) && !PLAIN_NUMBER.test(s);
  if (formula) s = `'${s}`;
  return formula || /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One line (no line end). */
export function csvLine(cells: readonly unknown[]): string {
  return cells.map(csvCell).join(',');
}

/** A header line and one line per row, each ended by `\n`. */
export function csvTable(header: readonly unknown[], rows: readonly (readonly unknown[])[]): string {
  return [csvLine(header), ...rows.map(csvLine)].join('\n') + '\n';
}
