/**
 * The test list in columns, as a scan process sends it back. Why: a big tree finds ~90k test files, and
 * sending them as objects makes the server rebuild 90k objects plus a string per framework name; one string
 * and two typed arrays cost a fraction of that and leave less garbage on the serving thread.
 */
import type { FoundTest, TestFramework } from '../../rules/types.ts';

export interface PackedTests {
  /** Every `file`, joined with NUL (a byte no path can hold). */
  readonly files: string;
  readonly frameworks: readonly TestFramework[];
  /** Per test, its index into `frameworks`. */
  readonly kinds: Uint8Array;
  /** Per test, `cases`, or NaN when it has none. */
  readonly cases: Float64Array;
}

/**
 * The largest delta (upserts + removed) a scan process sends with its result; the store writes a delta
 * only up to this size (its `SAVE_SLICE`) and rewrites every row from the columns past it.
 */
export const DELTA_ROWS = 1_000;

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

/**
 * `result` with its tests kept in columns: `packed` holds them and `tests` unpacks them on first read only.
 * Why: the server saves a big scan a slice at a time straight from the columns (`eachPacked`), so 200k
 * row objects never live at once on the HTTP thread (their young-generation GC paused it for 20-100 ms).
 * `packed` is not enumerable, so a spread or a structured clone sees an ordinary result.
 */
export function withPackedTests<T extends object>(result: T, packed: PackedTests): T & { readonly tests: FoundTest[] } {
  let tests: FoundTest[] | undefined;
  Object.defineProperty(result, 'tests', {
    enumerable: true, configurable: true,
    get: () => (tests ??= unpackTests(packed)),
  });
  Object.defineProperty(result, 'packed', { value: packed, enumerable: false });
  return result as T & { readonly tests: FoundTest[] };
}

/** The columns behind a result made by `withPackedTests`, if it was. */
export function packedOf(result: object): PackedTests | undefined {
  return (result as { packed?: PackedTests }).packed;
}

/** How many tests the columns hold. */
export const packedCount = (packed: PackedTests): number => packed.kinds.length;

/**
 * `result` without its tests, only their count: a scan process answering a caller that saves the delta
 * (`PoolScanCall.deltaOnly`). Why: a 100k-file tree's tests are a ~490 KB reply, bigger than the channel's
 * buffer, so its rest waited for the scan process's later turns (a major collection right after the scan,
 * then the cores shared with the snapshot's encoding: 8-23 ms of trip in 1% rescans, 2 ms otherwise), and
 * the server decoded all of it for a save that reads ~90 rows. Reading `tests` throws: nothing may take the
 * missing list for an empty one.
 */
export function withTestsLeftOut<T extends object>(
  result: T, count: number,
): T & { readonly tests: FoundTest[] } {
  Object.defineProperty(result, 'tests', {
    enumerable: true, configurable: true,
    get: () => { throw new Error('this scan result carries its delta only: its tests were left out'); },
  });
  Object.defineProperty(result, 'testsLeftOut', { value: count, enumerable: false });
  return result as T & { readonly tests: FoundTest[] };
}

/** True for a result made by `withTestsLeftOut`: only its delta and `testCountOf` say what it found. */
export function testsLeftOut(result: object): boolean {
  return (result as { testsLeftOut?: number }).testsLeftOut !== undefined;
}

/** How many tests a result holds, without unpacking a scan process's columns. */
export function testCountOf(result: { readonly tests: readonly unknown[] }): number {
  const leftOut = (result as { testsLeftOut?: number }).testsLeftOut;
  if (leftOut !== undefined) return leftOut;
  const packed = packedOf(result);
  return packed ? packedCount(packed) : result.tests.length;
}

/**
 * A cursor over the columns: `next()` gives the next test's fields (reusing one object, so nothing per
 * row outlives the call) or undefined at the end. The file names are cut from the joined string as read.
 */
export function packedCursor({ files, frameworks, kinds, cases }: PackedTests) {
  let index = 0;
  let at = 0;
  const row = { file: '', framework: '' as TestFramework, cases: null as number | null };
  return {
    get index(): number { return index; },
    next(): { readonly file: string; readonly framework: TestFramework; readonly cases: number | null } | undefined {
      if (index >= kinds.length) return undefined;
      let end = files.indexOf('\0', at);
      if (end === -1) end = files.length;
      row.file = files.slice(at, end);
      row.framework = frameworks[kinds[index]!]!;
      const n = cases[index]!;
      row.cases = Number.isNaN(n) ? null : n;
      at = end + 1;
      index++;
      return row;
    },
  };
}

/** `packedCursor` over tests held as objects. */
export function arrayCursor(tests: readonly FoundTest[]) {
  let index = 0;
  return {
    get index(): number { return index; },
    next(): { readonly file: string; readonly framework: TestFramework; readonly cases: number | null } | undefined {
      const t = tests[index];
      if (!t) return undefined;
      index++;
      return { file: t.file, framework: t.framework, cases: t.cases ?? null };
    },
  };
}
