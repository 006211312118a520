/**
 * Reading each found test file once to count its cases, shared by every discovery family. Reads go
 * through `ctx.readOnce` with bounded concurrency, so a tree with thousands of test files neither opens
 * them all at once nor keeps their text after counting.
 */
import { createHash } from 'node:crypto';
import type { FoundTest, ScanContext, TestFramework } from './types.ts';

/** Options of {@link withCases}. */
export interface WithCasesOptions {
  /**
   * How many files are read at a time.
   * @default 16
   */
  readonly concurrency?: number;
  /**
   * The rule's declaration that each file given comes back in its findings exactly as this call returns
   * it, whatever its count (no row dropped, added or changed by count). A rescan where only such files
   * changed then patches their counts into the last result instead of running every rule again. The scan
   * process keeps `count` until then: it must be a module-level function (or made by one), never a closure
   * inside the rule, which would keep the whole scan (its context, every path) alive; and it must add no
   * note (a patched rescan keeps the last notes).
   * @default false
   */
  readonly rowPerFile?: boolean;
  /**
   * Which of the files keep a row, by their count: every one (`all`), only those counted above 0
   * (`counted`: a doctest file holds tests only where it has an example; unread or 0: no row), or every
   * one but those counted -1 (`fits`: a Go file built for another platform). Declared here, not filtered
   * by the rule, so a rule unit's rows can be made again from counts alone (unit-memo.ts); a call that
   * declares neither this nor `rowPerFile` makes its unit run on every scan. @default 'all'
   */
  readonly keep?: 'all' | 'counted' | 'fits';
  /**
   * What else `count` depends on besides the file's text and name (say, how many of its tests the command
   * deselects), as text: part of the key a kept count is found under, so a count made under other settings
   * is not reused. @default ''
   */
  readonly depends?: string;
}

export type Counter = (text: string, file: string) => number | undefined;
/** One call of {@link withCases}, as given: enough to make it again. */
export interface CountCall {
  readonly files: readonly string[];
  readonly framework: TestFramework | ((file: string) => TestFramework);
  readonly count: Counter;
  readonly options: WithCasesOptions;
}

/**
 * The found tests for `files`, in the same order, each with `cases` when `count` gives a number.
 * `framework` is one name for all files, or a lookup per file.
 *
 * `count` must be a pure function of `(text, file)` and `depends`: a rescan reuses the last count of a file
 * whose stat stamp has not moved, keyed by the framework, the counting function's source text and `depends`.
 *
 * @example
 * await withCases(ctx, ['a_test.go'], 'go', (text) => (text.match(/^func Test/gm) ?? []).length);
 * // [{ file: 'a_test.go', framework: 'go', cases: 2 }]
 */
export async function withCases(
  ctx: ScanContext, files: Iterable<string>, framework: TestFramework | ((file: string) => TestFramework),
  count: (text: string, file: string) => number | undefined,
  { concurrency = 16, rowPerFile = false, depends = '', keep }: WithCasesOptions = {},
): Promise<FoundTest[]> {
  const list = [...files];
  ctx.counting?.calls?.({
    files: list, framework, count, options: { concurrency, rowPerFile, depends, ...(keep ? { keep } : {}) },
  });
  const frameworkOf = typeof framework === 'function' ? framework : () => framework;
  const out: FoundTest[] = new Array(list.length);
  // The memo key: framework + a digest of the counting function's source, one string per framework (a key
  // built per file would be flattened per file: 90k copies of the source on a big tree).
  const digest = createHash('sha256').update(`${String(count)}\0${depends}`).digest('base64').slice(0, 22);
  const keys = new Map<string, string>();
  const keyOf = (name: string): string => {
    let key = keys.get(name);
    if (key === undefined) {
      keys.set(name, (key = `${name}:${digest}`));
      const counters = ctx.counting?.counters;
      // Two calls counting with one key but different closures (say two pytest commands, each with its own
      // deselections) could not tell which one to patch with: neither is used.
      const had = counters?.get(key);
      if (counters && had !== null) counters.set(key, rowPerFile && (had === undefined || had === count) ? count : null);
    }
    return key;
  };
  const countRead = ctx.counting?.read ?? ctx.readOnce;
  ctx.readAhead?.(list);
  const memo = ctx.memo;
  // Perf: counts the last scan kept are taken first, in one pass without awaiting (a 1% rescan of the 100k
  // tree takes ~9k of them and reads ~100 files); only the files left are read, `concurrency` at a time.
  const left: number[] = [];
  for (let i = 0; i < list.length; i++) {
    const file = list[i]!;
    const name = frameworkOf(file);
    const key = keyOf(name);
    const known = memo?.get(file, key);
    if (known === undefined) { left.push(i); continue; }
    memo?.set(file, key, known);
    out[i] = Number.isNaN(known) ? { file, framework: name } : { file, framework: name, cases: known };
  }
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < left.length) {
      const i = left[next++]!;
      const file = list[i]!;
      const name = frameworkOf(file);
      const cases = await (ctx.countedAhead?.(file, count)
        ?? countRead(file).then((text) => (text === undefined ? undefined : count(text, file))));
      memo?.set(file, keyOf(name), cases ?? NaN);
      out[i] = cases === undefined ? { file, framework: name } : { file, framework: name, cases };
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, left.length) }, worker));
  if (keep === 'counted') return out.filter((t) => (t.cases ?? 0) > 0);
  if (keep === 'fits') return out.filter((t) => t.cases !== -1);
  return out;
}
