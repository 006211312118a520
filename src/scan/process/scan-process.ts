import { fork } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { ScanResult } from '../index.ts';
import { testCountOf, withPackedTests, withTestsLeftOut } from './packed.ts';
import type { DirsReply, ScanReply, ScanRequest, SnapshotReply } from './process.ts';
import type { ScanProgress } from './probe.ts';

/** An error with a `code` (`SCAN_DEADLINE`, `SCAN_OUT_OF_MEMORY`, `SCAN_CANCELLED`, `SCAN_PROCESS_DIED`, ...). */
export function scanError(code: string, message: string, extra: { reading?: string } = {}): Error {
  return Object.assign(new Error(message), { code }, extra.reading ? { reading: extra.reading } : {});
}

export type ScanProcess = ReturnType<typeof startScanProcess>;

/**
 * A scan process's result. The snapshot, when the scan made one, comes after the findings
 * (`snapshotLater`, null if the process could not send it): the caller saves the findings meanwhile.
 */
export type ProcessScanResult = ScanResult & { readonly snapshotLater?: Promise<Uint8Array | null> };

/** How one scan is run: its deadline, and who hears its progress. */
interface RunCall {
  readonly deadlineMs: number;
  readonly onProgress?: ((p: ScanProgress) => void) | undefined;
  readonly onDirsChecked?: ((unchanged: boolean) => void) | undefined;
}

/** A snapshot the process is still encoding: it takes no other scan until then. */
interface SnapshotWait {
  readonly id: number;
  readonly timer: NodeJS.Timeout;
  resolve(bytes: Uint8Array | null): void;
}

interface Running {
  readonly id: number;
  readonly onProgress: ((p: ScanProgress) => void) | undefined;
  readonly onDirsChecked: ((unchanged: boolean) => void) | undefined;
  readonly timer: NodeJS.Timeout;
  reading: string;
  files: number;
  settle(result: ProcessScanResult | Error): void;
}

/**
 * glibc's allocator settings for a scan process, unless the environment already sets them: blocks of 128 KB
 * and more are mapped and unmapped on their own, and free memory above 128 KB at the top of the heap goes
 * back to the system. By default both limits rise as big blocks are freed, and then the buffers a big scan
 * allocates and frees stay held: a 1M-file tree's scan process peaked ~20 MB higher. Other allocators
 * ignore these variables.
 */
const MALLOC_LIMITS = Object.freeze({ MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' });

function withMallocLimits(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...MALLOC_LIMITS, ...env };
}

/**
 * One scan process: `node --max-old-space-size=<heapMb> process.{ts,js}` with an IPC channel for requests
 * and results, fd 3 for the watchdog's progress lines and stderr kept (its tail tells an out-of-memory
 * death). `onExit` runs once the process is gone, whatever the reason.
 */
export function startScanProcess(entry: string, heapMb: number, onExit: () => void, env?: NodeJS.ProcessEnv) {
  const child = fork(entry, [], {
    // A RegExp that backtracks too much (a project's `(a+)+$`, or a file-format pattern meeting a hostile
    // file) switches to V8's linear-time engine; only patterns with lookarounds or backreferences cannot.
    // `--expose-gc`: a big scan's garbage is collected between requests (process.ts `collect`).
    // `--v8-pool-size=1`: one background thread for V8's collector, not Node's default four. A scan process
    // shares the cores with its own helper thread, the server and the other scan processes; with four, each
    // small young-generation collection hands out tasks to threads that wait for a core while the scan
    // waits for them (10k-file trees scanned one after another or side by side: 6-17% faster).
    execArgv: [
      `--max-old-space-size=${heapMb}`, '--max-semi-space-size=2', '--v8-pool-size=1',
      '--enable-experimental-regexp-engine-on-excessive-backtracks', '--expose-gc',
    ],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'ipc'],
    env: withMallocLimits(env ?? process.env),
  });
  const streams = [child.stdio[2], child.stdio[3]] as Readable[];
  let stderr = '';
  let job: Running | undefined;
  let snapshotWait: SnapshotWait | undefined;
  let deadline = 0;
  let done: Promise<void> = Promise.resolve();
  let stopReason: string | undefined;
  let dying = false;
  let idleTimer: NodeJS.Timeout | undefined;
  let ready = false;
  let onReady: (() => void) | undefined;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  // An idle process must not keep the server's process alive; a busy one must, until it answers.
  const hold = (on: boolean): void => {
    const method = on ? 'ref' : 'unref';
    child[method]();
    (child.channel as { ref?(): void; unref?(): void } | undefined)?.[method]?.();
    for (const s of streams) (s as unknown as { ref?(): void; unref?(): void })[method]?.();
  };
  hold(false);

  streams[0]!.setEncoding('utf8').on('data', (text: string) => { stderr = (stderr + text).slice(-4096); });
  let partial = '';
  streams[1]!.setEncoding('utf8').on('data', (text: string) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      let p: { id: number; files: number; tests: number; reading: string };
      try { p = JSON.parse(line); } catch { continue; }
      if (job?.id !== p.id) continue;
      job.reading = p.reading;
      job.files = p.files;
      job.onProgress?.({ files: p.files, tests: p.tests });
    }
  });

  const snapshotDone = (bytes: Uint8Array | null): void => {
    const wait = snapshotWait;
    if (!wait) return;
    snapshotWait = undefined;
    clearTimeout(wait.timer);
    if (!job) hold(false);
    wait.resolve(bytes);
  };

  child.on('message', (reply: ScanReply | SnapshotReply | DirsReply | { ready: true }) => {
    if ('ready' in reply) { ready = true; onReady?.(); onReady = undefined; return; }
    if ('dirsUnchanged' in reply) {
      if (job?.id === reply.id) job.onDirsChecked?.(reply.dirsUnchanged === true);
      return;
    }
    if ('snapshot' in reply) { if (snapshotWait?.id === reply.id) snapshotDone(reply.snapshot); return; }
    if (job?.id !== reply.id) return;
    if ('error' in reply) job.settle(scanError(reply.error.code ?? 'SCAN_FAILED', reply.error.message));
    else {
      job.files = reply.files;
      const snapshotLater = !reply.snapshotFollows ? undefined : new Promise<Uint8Array | null>((resolve) => {
        // Encoding is the engine's own work over bounded data; a process stuck in it is ended all the same.
        const stuck = (): void => { void proc.stop('The scan process did not finish its snapshot'); };
        const timer = setTimeout(stuck, deadline);
        snapshotWait = { id: reply.id, timer, resolve };
      });
      // The tests stay in columns until someone reads `tests`: the store saves them from the columns.
      const later = snapshotLater ? { snapshotLater } : {};
      const result = { ...reply.result, ...later };
      job.settle(reply.tests ? withPackedTests(result, reply.tests) : withTestsLeftOut(result, reply.count));
    }
  });
  // A send to a process that has ended fails (EPIPE) before its exit is seen: it must not look idle meanwhile.
  child.on('error', (error) => {
    dying = true;
    job?.settle(scanError('SCAN_PROCESS_DIED', `The scan process ended unexpectedly (${error.message})`));
  });
  child.once('exit', (code, signal) => {
    clearTimeout(idleTimer);
    snapshotDone(null);
    if (job) {
      const where = job.reading ? `; it was reading ${job.reading}` : '';
      if (stopReason) job.settle(scanError('SCAN_CANCELLED', `${stopReason}: the scan was stopped${where}`, job));
      else if (/heap out of memory|Reached heap limit|allocation failed/i.test(stderr) || signal === 'SIGABRT') {
        job.settle(scanError('SCAN_OUT_OF_MEMORY', `The scan ran out of memory (${heapMb} MB heap)${where}`, job));
      } else job.settle(scanError('SCAN_PROCESS_DIED', `The scan process ended unexpectedly (${signal ?? `code ${code}`})${where}`, job));
    }
    onExit();
  });

  const proc = {
    heapMb,
    get idle(): boolean {
      const running = child.exitCode === null && child.signalCode === null;
      return job === undefined && snapshotWait === undefined && !dying && running;
    },
    /** Settles when the current scan (if any) has, its snapshot included. */
    get done(): Promise<void> { return done; },

    run(
      request: ScanRequest,
      { deadlineMs, onProgress, onDirsChecked }: RunCall,
    ): Promise<ProcessScanResult> {
      clearTimeout(idleTimer);
      deadline = deadlineMs;
      const promise = new Promise<ProcessScanResult>((resolve, reject) => {
        const expire = (): void => {
          dying = true;
          const where = current.reading ? `while reading ${current.reading}` : 'before reading any file';
          current.settle(scanError('SCAN_DEADLINE', `Scan stopped after ${Math.round(deadlineMs / 1000)} s (its deadline) ${where}`, current));
          child.kill('SIGKILL'); // Stuck in a loop maybe: only a kill ends it. The pool starts a new one.
        };
        // The deadline counts from the request reaching a loaded process (a start that hangs is bounded too).
        let timer = setTimeout(expire, deadlineMs);
        const current: Running = {
          id: request.id,
          onProgress,
          onDirsChecked,
          get timer() { return timer; },
          reading: '',
          files: 0,
          settle(result) {
            if (job !== current) return;
            job = undefined;
            clearTimeout(timer);
            if (!snapshotWait) hold(false);
            if (result instanceof Error) reject(result);
            else {
              // Counted from the columns: reading `tests` would build every row object on the serving thread.
              onProgress?.({ files: current.files, tests: testCountOf(result) });
              resolve(result);
            }
          },
        };
        job = current;
        hold(true);
        const send = (): void => {
          clearTimeout(timer);
          timer = setTimeout(expire, deadlineMs);
          child.send(request);
        };
        if (ready) send();
        else onReady = send;
      });
      done = promise.then((result) => result.snapshotLater, () => undefined).then(() => undefined);
      return promise;
    },

    /** Ends the process (a running scan fails with `reason`); resolves once it has exited. */
    stop(reason = 'The scan process was stopped'): Promise<void> {
      stopReason ??= reason;
      dying = true;
      if (child.exitCode === null && child.signalCode === null) {
        hold(true); // Until it has exited: an unref'd child's exit would otherwise never be awaited.
        child.kill('SIGKILL');
      }
      return exited;
    },

    /** Ends the process after `ms` idle, if `extra()` still says it is not the last one by then. */
    stopIfIdleAfter(ms: number, extra: () => boolean): void {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => { if (proc.idle && extra()) void proc.stop(); }, ms).unref();
    },
  };
  return proc;
}
