// Scan-process entry: runs `scan` for the pool in pool.ts, one request at a time, and sends the result
// back over the IPC channel. It exits when the server goes away (the channel closes), so a scan never
// outlives the server that asked for it.
import { realpath } from 'node:fs/promises';
import { scan, type ScanOptions, type ScanResult } from '../index.ts';
import { DELTA_ROWS, packedOf, packTests, testCountOf, type PackedTests } from './packed.ts';
import { createStatusCell } from './probe.ts';
import { createScanCache } from '../incremental/cache.ts';
import { getHeapStatistics } from 'node:v8';
import { flushCompileCache } from 'node:module';

// Heap the decoded snapshots kept (and the walks they were made from) may hold: a 100k-file tree's ~16 MB,
// a 10k-file one's ~2 MB; well inside the 256 MB heap a scan process runs in.
const SNAPSHOT_CACHE_BYTES = 48 * 1024 * 1024;

/**
 * Heap in use after a reply above which the scan's garbage is collected before the next request comes:
 * a 1M-file tree's scan leaves ~100 MB (its walk, the rules' views) that V8 would collect only once the
 * next scan's allocations reach the heap limit, so the next walk ran on top of it (peak RSS 284 -> 323 MB
 * from the first scan of that tree to the third). A 100k-file tree's scans stay below it.
 */
const COLLECT_ABOVE_BYTES = 96 * 1024 * 1024;

export interface ScanRequest {
  readonly id: number;
  /** The project's registered real path; the scan refuses a root that now resolves elsewhere. */
  readonly root: string;
  readonly options: Omit<ScanOptions, 'probe' | 'signal' | 'exclude' | 'now'>;
  /** Leave the tests out of an unchanged or small incremental result's reply (`PoolScanCall.deltaOnly`). */
  readonly deltaOnly?: boolean;
  /**
   * In place of `options.previous`: the digest of snapshot bytes this process was sent or made before
   * (`SnapshotKeeper.held`); a process that no longer holds them answers `SNAPSHOT_NOT_HELD`.
   */
  readonly previousDigest?: string;
}

export type ScanReply =
  | {
    readonly id: number; readonly result: Omit<ScanResult, 'tests' | 'encodeSnapshot'>;
    /** Null when left out (`deltaOnly`): `count` says how many there are. */
    readonly tests: PackedTests | null; readonly count: number; readonly files: number;
    /** The snapshot comes in a {@link SnapshotReply} of its own, encoded after this reply was sent. */
    readonly snapshotFollows: boolean;
  }
  | { readonly id: number; readonly error: { readonly message: string; readonly code?: string } };

/** Sent while a scan runs, once its quick check is done (see `ScanProbe.checkedDirs`). */
export interface DirsReply { readonly id: number; readonly dirsUnchanged: boolean }

/** A scan's snapshot, sent after its findings; null when encoding it failed (the next scan is then full). */
export interface SnapshotReply { readonly id: number; readonly snapshot: Uint8Array | null }

// What this process keeps between the scans it is asked for. The server sends each project's last snapshot
// back with its next scan: keep what those bytes decode to. One scan at a time, absolute paths everywhere
// else: the rescan fast path may stat from inside the root.
const cache = createScanCache({
  snapshotBytes: SNAPSHOT_CACHE_BYTES, shareWalks: true,
  enterRoot: (root) => { try { process.chdir(root); return true; } catch { return false; } },
});
// The helper thread (a first walk's subtrees, a rescan's stat checks) loads beside this thread's modules; it
// also runs the watchdog that reports this thread's progress while it is busy (probe.ts).
const status = createStatusCell();
cache.helper?.watch(status.sab);

type Answer = { readonly reply: ScanReply; readonly encode?: () => Uint8Array };

const answer = async ({ id, root, options, deltaOnly = false, previousDigest }: ScanRequest): Promise<Answer> => {
  status.begin(id);
  try {
    // Checked here too, not only by the server: the directory may be swapped for a link in between.
    if (await realpath(root) !== root) {
      const moved = { message: 'project directory now resolves to another place', code: 'ROOT_MOVED' };
      return { reply: { id, error: moved } };
    }
    // What other roots' snapshots hold must not push this scan into the heap limit (and a retry elsewhere).
    const heap = getHeapStatistics();
    if (heap.used_heap_size > heap.heap_size_limit / 4) { cache.snapshots.drop(root); cache.units?.drop(root); }
    // Named by digest: the bytes this process kept, or an answer that makes the pool send them.
    const previous = previousDigest === undefined ? options.previous : cache.snapshots.held(root, previousDigest);
    if (previousDigest !== undefined && previous === undefined) {
      const gone = { message: 'snapshot no longer held: send its bytes', code: 'SNAPSHOT_NOT_HELD' };
      return { reply: { id, error: gone } };
    }
    // The snapshot is encoded after the findings are sent: the server saves them meanwhile.
    // The quick check's verdict goes out at once: the server decides from it what git has to read again.
    const checkedDirs = (unchanged: boolean): void => {
      process.send!({ id, dirsUnchanged: unchanged } satisfies DirsReply);
    };
    const probe = { ...status.probe, checkedDirs };
    const found = await scan(root, { ...options, previous, probe, cache, deferSnapshot: true });
    // Columns an unchanged rescan answers with are sent as they are (reading `tests` would unpack them).
    const packed = packedOf(found);
    const { delta } = found;
    const rest = withoutTests(found);
    // A delta past DELTA_ROWS is not sent: the store rewrites every row then anyway, and 200k changed rows
    // as objects would cost the server what the columns save.
    const result = delta && delta.upserts.length + delta.removed.length <= DELTA_ROWS ? { ...rest, delta } : rest;
    const encode = found.encodeSnapshot;
    // A caller that saves deltas needs no tests where the result is unchanged or carries its delta.
    const leaveOut = deltaOnly && (found.mode === 'unchanged' || 'delta' in result);
    const tests = leaveOut ? null : packed ?? packTests(found.tests);
    const count = testCountOf(found);
    const reply = { id, result, tests, count, files: status.files(), snapshotFollows: encode !== undefined };
    return { reply, ...(encode ? { encode } : {}) };
  } catch (error) {
    const { message, code } = (error ?? {}) as NodeJS.ErrnoException;
    return { reply: { id, error: { message: String(message ?? error), ...(code ? { code } : {}) } } };
  }
};

/**
 * `result` without `tests`, `delta` and `encodeSnapshot`, and without reading `tests` (a getter that may
 * unpack columns).
 */
const LEFT_OUT = new Set(['tests', 'delta', 'encodeSnapshot']);

function withoutTests(result: ScanResult): Omit<ScanResult, 'tests' | 'delta' | 'encodeSnapshot'> {
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(result)) {
    if (!LEFT_OUT.has(key)) rest[key] = result[key as keyof ScanResult];
  }
  return rest as Omit<ScanResult, 'tests' | 'delta' | 'encodeSnapshot'>;
}

/** The snapshot's bytes, or null: a snapshot that cannot be made costs the next scan its shortcuts only. */
function encodeOrNull(encode: () => Uint8Array): Uint8Array | null {
  try { return encode(); } catch { return null; }
}

/** Collects a big scan's garbage while the process waits (the scan-process flags expose `gc`). */
const collect = (): void => {
  const gc = (globalThis as { gc?: (options: object) => void }).gc;
  if (!gc || getHeapStatistics().used_heap_size < COLLECT_ABOVE_BYTES) return;
  // V8's last-resort collection: repeated until nothing more is freed, and the emptied pages go back to the
  // system. One plain collection left ~90 MB of the 1M-file scan reachable (not with
  // `--retain-maps-for-n-gc=0`: hidden classes V8 keeps for two more collections hold it); three plain ones
  // freed it but kept the pages (RSS 216 vs 135 MB after) and took ~600 ms of CPU, this one ~110-160 ms.
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
};

process.on('message', (request: ScanRequest) => {
  void answer(request).then(({ reply, encode }) => {
    // The snapshot is encoded once the findings are written out, not just queued: a reply bigger than the
    // pipe's buffer (a 100k-file tree's tests) would otherwise wait half-sent while the encoding holds this
    // thread (25-40 ms there). Requests arriving meanwhile wait for this turn.
    process.send!(reply, () => {
      if (encode) process.send!({ id: reply.id, snapshot: encodeOrNull(encode) } satisfies SnapshotReply);
      // In a later turn: until the scan's last callbacks have run, they still hold its context.
      setImmediate(collect);
    });
  });
});
process.on('disconnect', () => process.exit(0));
// Loading the scanner takes a while on a busy machine: the pool starts a scan's deadline only from here.
process.send!({ ready: true });
// The pool ends scan processes with a kill, which writes no compile cache (see scan-process.ts): written now.
flushCompileCache?.();
