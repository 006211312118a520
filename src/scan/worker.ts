// Worker-thread entry: runs `scan` for the main thread, one request at a time, and posts the result back.
import { parentPort } from 'node:worker_threads';
import { scan, type ScanOptions, type ScanResult } from './index.ts';
import type { FoundTest, TestFramework } from './types.ts';
// `unpackTests` (the other half) lives in pool.ts, so the serving thread never loads the scanner's modules.

export interface ScanRequest {
  readonly id: number;
  readonly root: string;
  readonly options: ScanOptions;
  /** Post `{ id, progress }` messages while walking. */
  readonly progress?: boolean;
}

/**
 * The test list in columns. Why: a big tree finds ~90k test files, and cloning them as objects makes the
 * receiving thread rebuild 90k objects plus a string per framework name; one string and two typed arrays
 * clone in a fraction of that (the arrays are transferred) and leave less garbage on the serving thread.
 */
export interface PackedTests {
  /** Every `file`, joined with NUL (a byte no path can hold). */
  readonly files: string;
  readonly frameworks: readonly TestFramework[];
  /** Per test, its index into `frameworks`. */
  readonly kinds: Uint8Array;
  /** Per test, `cases`, or NaN when it has none. */
  readonly cases: Float64Array;
}

export type ScanReply =
  | { readonly id: number; readonly progress: { readonly files: number; readonly tests: number } }
  | { readonly id: number; readonly result: Omit<ScanResult, 'tests'>; readonly tests: PackedTests }
  | { readonly id: number; readonly error: { readonly message: string; readonly code?: string } };

/** Column form of `tests`, see {@link PackedTests}. */
function packTests(tests: readonly FoundTest[]): PackedTests {
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

parentPort?.on('message', ({ id, root, options, progress }: ScanRequest) => {
  const onProgress = progress ? (files: number) => parentPort!.postMessage({ id, progress: { files, tests: 0 } } satisfies ScanReply) : undefined;
  scan(root, { ...options, ...(onProgress ? { onProgress } : {}) }).then(
    ({ tests, ...result }) => {
      const packed = packTests(tests);
      parentPort!.postMessage({ id, result, tests: packed } satisfies ScanReply, [packed.kinds.buffer as ArrayBuffer, packed.cases.buffer as ArrayBuffer]);
    },
    (error: NodeJS.ErrnoException) => parentPort!.postMessage({ id, error: { message: String(error?.message ?? error), ...(error?.code ? { code: error.code } : {}) } } satisfies ScanReply),
  );
});
