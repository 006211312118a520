/**
 * The test list in columns, as a scan process sends it back. Why: a big tree finds ~90k test files, and
 * sending them as objects makes the server rebuild 90k objects plus a string per framework name; one string
 * and two typed arrays cost a fraction of that and leave less garbage on the serving thread.
 */
import type { FoundTest, TestFramework } from './types.ts';

export interface PackedTests {
  /** Every `file`, joined with NUL (a byte no path can hold). */
  readonly files: string;
  readonly frameworks: readonly TestFramework[];
  /** Per test, its index into `frameworks`. */
  readonly kinds: Uint8Array;
  /** Per test, `cases`, or NaN when it has none. */
  readonly cases: Float64Array;
}

/** Column form of `tests`. */
export function packTests(tests: readonly FoundTest[]): PackedTests {
  const frameworks: TestFramework[] = [];
  const kinds = new Uint8Array(tests.length);
  const cases = new Float64Array(tests.length);
  tests.forEach((t, i) => {
    let kind = frameworks.indexOf(t.framework);
    if (kind === -1) kind = frameworks.push(t.framework) - 1;
    kinds[i] = kind;
    cases[i] = t.cases ?? NaN;
  });
  return { files: tests.map((t) => t.file).join('\0'), frameworks, kinds, cases };
}

/** The objects `packTests` was given, equal field for field (no `cases` key where there was none). */
export function unpackTests({ files, frameworks, kinds, cases }: PackedTests): FoundTest[] {
  if (kinds.length === 0) return [];
  return files.split('\0').map((file, i) => {
    const framework = frameworks[kinds[i]!]!;
    const n = cases[i]!;
    return Number.isNaN(n) ? { file, framework } : { file, framework, cases: n };
  });
}
