/**
 * What a scan process is doing right now, readable even while its main thread is stuck: a small
 * SharedArrayBuffer the scan writes (files walked, test files read, the file being read) and a watchdog on
 * another thread that copies it to a pipe every 250 ms. Why a thread: a hostile config can keep the scan's
 * own thread busy for minutes, and the pool must still learn how far it got and which file it was reading.
 */

/** Progress of one scan, as `scanProject`'s `onProgress` reports it. */
export interface ScanProgress {
  /** Regular files the walk has listed so far. */
  readonly files: number;
  /** Test files read so far (to count their cases); the final report gives the exact number found. */
  readonly tests: number;
}

/** Hooks a scan calls as it goes (cheap: they only store numbers and bytes). */
export interface ScanProbe {
  walked(files: number): void;
  /** A rule got the text of `file`; `once` marks a test file read to count its cases. */
  reading(file: string, once: boolean): void;
  /**
   * Told once the quick check is done (before the rules run): true when every directory of the previous
   * snapshot has its stamp, so nothing was added to, removed from or renamed in any directory the walk keeps
   * (files edited in place do not count); false when one moved or there was no snapshot to check.
   */
  checkedDirs?(unchanged: boolean): void;
}

// Int32 slots: 0 seqlock (odd while writing), 1 scan id, 2 files, 3 tests, 4 byte length of `reading`.
const INTS = 5;
const NAME_BYTES = 1024;

/** The cell, created in the scan process and handed to its watchdog thread. */
export function createStatusCell(sab = new SharedArrayBuffer(INTS * 4 + NAME_BYTES)) {
  const ints = new Int32Array(sab, 0, INTS);
  const name = new Uint8Array(sab, INTS * 4, NAME_BYTES);
  const encoder = new TextEncoder();
  const write = (fn: () => void): void => {
    Atomics.add(ints, 0, 1);
    fn();
    Atomics.add(ints, 0, 1);
  };
  const probe: ScanProbe = {
    walked: (files) => { Atomics.store(ints, 2, files); },
    reading: (file, once) => write(() => {
      if (once) ints[3]!++;
      ints[4] = encoder.encodeInto(file, name).written;
    }),
  };
  return {
    sab,
    probe,
    /** Files the current scan has walked. */
    files: () => Atomics.load(ints, 2),
    /** A new scan starts: counters back to zero. */
    begin: (id: number) => write(() => { ints[1] = id; ints[2] = 0; ints[3] = 0; ints[4] = 0; }),
  };
}

/**
 * The watchdog: every 250 ms, writes one JSON line `{ id, files, tests, reading }` to fd 3 when something
 * changed. It runs on the scan's helper thread (helper-thread.ts), which a scan process keeps anyway: a
 * thread of its own cost the process ~17 MB (one more isolate). A torn read (the scan wrote meanwhile) is
 * retried on the next tick. Returns a function that stops it.
 */
export function watchStatus(sab: SharedArrayBuffer, write: (line: string) => void): () => void {
  const ints = new Int32Array(sab, 0, INTS);
  const name = new Uint8Array(sab, INTS * 4, NAME_BYTES);
  const decoder = new TextDecoder();
  let last = '';
  const timer = setInterval(() => {
    const seq = Atomics.load(ints, 0);
    if (seq % 2 === 1) return;
    const id = ints[1]!, files = ints[2]!, tests = ints[3]!, length = ints[4]!;
    const reading = decoder.decode(name.slice(0, length));
    if (Atomics.load(ints, 0) !== seq || id === 0) return;
    const line = JSON.stringify({ id, files, tests, reading }) + '\n';
    if (line === last) return;
    try { write(line); last = line; } catch { /* the pipe is gone: the process is ending */ }
  }, 250);
  return () => clearInterval(timer);
}
