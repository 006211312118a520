/** Median of a list of numbers (NaN for an empty list). */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile `p` (0..100) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/**
 * Runs `subject` and `baseline` alternately for `rounds` rounds, in ABBA order (subject first on even
 * rounds, baseline first on odd ones) so that neither always runs on a warmer or a noisier machine.
 */
export async function alternate<T>(rounds: number, subject: (round: number) => Promise<T>, baseline: (round: number) => Promise<T>): Promise<{ subject: T[]; baseline: T[] }> {
  const out = { subject: [] as T[], baseline: [] as T[] };
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      out.subject.push(await subject(round));
      out.baseline.push(await baseline(round));
    } else {
      out.baseline.push(await baseline(round));
      out.subject.push(await subject(round));
    }
  }
  return out;
}

/** Milliseconds elapsed while `fn` runs. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** One line of the results table. `ratio` is subject / baseline; `pass` is null when there is no target. */
export interface Row {
  readonly name: string;
  readonly subject: string;
  readonly baseline: string;
  readonly ratio: number | null;
  readonly target: string;
  readonly pass: boolean | null;
  /** Met with less than {@link LINE_MARGIN} to spare: shown as "on the line", which does not count as met. */
  readonly onLine?: boolean;
  readonly note?: string;
}

/** The share of a ceiling a ratio must stay under to be shown as met rather than on the line. */
export const LINE_MARGIN = 0.05;

/** `pass` and `onLine` of a row whose ratio must stay at or under `max`. */
export function underCeiling(ratio: number, max: number): { pass: boolean; onLine: boolean } {
  return { pass: ratio <= max, onLine: ratio <= max && ratio > max * (1 - LINE_MARGIN) };
}

export const ms = (v: number): string => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) + ' ms';
export const rps = (v: number): string => `${Math.round(v).toLocaleString('en')} req/s`;
export const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;

/** Renders rows as one aligned plain-text table. */
export function formatTable(rows: readonly Row[]): string {
  const header = ['benchmark', 'projdex', 'baseline', 'ratio', 'target', 'result', 'note'];
  const cells = rows.map((r) => [
    r.name, r.subject, r.baseline, r.ratio === null || !Number.isFinite(r.ratio) ? '-' : `${r.ratio.toFixed(2)}x`,
    r.target, r.pass === null ? '' : !r.pass ? 'MISSED' : r.onLine ? 'on the line' : 'met', r.note ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]): string => c.map((v, i) => (i === 1 || i === 2 || i === 3 ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}
