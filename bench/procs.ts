import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

const ROOT = join(import.meta.dirname, '..');
let bin = join(ROOT, 'src', 'bin.ts');
/** The projdex entry the suites start: the sources, or after {@link useBuilt} the built package. */
export const projdexBin = (): string => bin;
/** Starts the built package (`dist/bin.js`, what `npx projdex` runs) from now on: `bench/run.ts --dist`. */
export function useBuilt(): void {
  bin = join(ROOT, 'dist', 'bin.js');
}
export const BARE = join(import.meta.dirname, 'bare-server.ts');

/** A server running in its own child process. */
export interface Child {
  readonly url: string;
  readonly proc: ChildProcess;
  /** Peak resident set size so far, in bytes (Linux `VmHWM`), or NaN where /proc is missing. */
  peakRss(): number;
  /**
   * Largest peak RSS (`VmHWM`) among the server's live child processes (its scan processes), or NaN when
   * none: scans run there, so the server's own figure leaves them out. A process already gone is not seen.
   */
  childPeakRss(): number;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Spawns `node ...args` and resolves once its first stdout line names a URL. Uses this process's own
 * Node binary (the pinned Node 24), so the child's pid is the server itself, not a wrapper.
 */
export function spawnServer(args: readonly string[], { nodeArgs = [] as readonly string[], timeoutMs = 30_000 } = {}): Promise<Child> {
  const proc = spawn(process.execPath, [...nodeArgs, ...args], { stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT });
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`no URL from ${args.join(' ')} within ${timeoutMs} ms`)); }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8');
      const match = /(http:\/\/[^\s]+)/.exec(buffered.split('\n')[0] ?? '');
      if (!match || !buffered.includes('\n')) return;
      clearTimeout(timer);
      proc.stdout!.off('data', onData);
      proc.stdout!.resume(); // keep draining so the child never blocks on a full pipe
      resolve(childHandle(match[1]!, proc));
    };
    proc.stdout!.on('data', onData);
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${args.join(' ')} exited with ${code} before listening`)); });
  });
}

function childHandle(url: string, proc: ChildProcess): Child {
  const exited = new Promise<void>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve();
    else proc.once('exit', () => resolve());
  });
  return {
    url,
    proc,
    peakRss: () => {
      try {
        const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))?.[1];
        return kb === undefined ? Number.NaN : Number(kb) * 1024;
      } catch {
        return Number.NaN;
      }
    },
    childPeakRss: () => {
      let peak = Number.NaN;
      try {
        const kids = readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
        for (const kid of kids) {
          const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${kid}/status`, 'utf8'))?.[1];
          if (kb !== undefined && !(Number(kb) * 1024 <= peak)) peak = Number(kb) * 1024;
        }
      } catch { /* no /proc, or the child just exited */ }
      return peak;
    },
    stop: async () => {
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** What {@link sampleTogether} saw at the moment the sum was highest. */
export interface TogetherPeak {
  /** The highest sum of `VmRSS` over the process and its children, in bytes (NaN without /proc). */
  readonly rss: number;
  /** File-backed pages in that sum (`RssFile`): the Node binary, counted in each process; git's packs. */
  readonly file: number;
}

/**
 * Samples the resident memory of `pid` and its live children (scan processes, git) together every
 * `everyMs`, keeping the highest sum: what they hold at one moment, where adding each one's own peak
 * (`VmHWM`) adds peaks that need not meet and misses a child that came and went. A peak shorter than the
 * interval can be missed. It samples on a thread of its own: this thread's synchronous work (parsing a
 * big answer) delays no sample.
 */
export function sampleTogether(pid: number, { everyMs = 25 } = {}): { stop(): Promise<TogetherPeak> } {
  const shared = new Float64Array(new SharedArrayBuffer(16)).fill(Number.NaN);
  const worker = new Worker(SAMPLER, { eval: true, workerData: { pid, everyMs, shared } });
  worker.unref();
  return {
    stop: async () => {
      await worker.terminate();
      return { rss: shared[0]!, file: Number.isNaN(shared[1]!) ? 0 : shared[1]! };
    },
  };
}

// The sampler thread: one sample every `everyMs`; a sample that misses a process (it ended between the two
// reads), or a machine without /proc, is left out.
const SAMPLER = `
const { readFileSync } = require('node:fs');
const { workerData: { pid, everyMs, shared } } = require('node:worker_threads');
const kb = (status, pattern) => Number(pattern.exec(status)?.[1] ?? 0) * 1024;
setInterval(() => {
  let rss = 0, file = 0;
  try {
    const kids = readFileSync('/proc/' + pid + '/task/' + pid + '/children', 'utf8').trim().split(/\\s+/);
    for (const one of [String(pid), ...kids.filter(Boolean)]) {
      const status = readFileSync('/proc/' + one + '/status', 'utf8');
      rss += kb(status, /VmRSS:\\s+(\\d+)/);
      file += kb(status, /RssFile:\\s+(\\d+)/);
    }
  } catch { return; }
  if (!(rss <= shared[0])) { shared[0] = rss; shared[1] = file; }
}, everyMs);
`;

/** Starts projdex (`node src/bin.ts --port 0 --data-dir DIR`, or dist/bin.js) in a child process. */
export function spawnProjdex(dataDir: string, { nodeArgs = [] as readonly string[] } = {}): Promise<Child> {
  return spawnServer([bin, '--port', '0', '--data-dir', dataDir], { nodeArgs });
}

/** Starts the bare node:http server, replaying the responses recorded in `routesFile` (if any). */
export function spawnBare(routesFile?: string): Promise<Child> {
  return spawnServer(routesFile === undefined ? [BARE] : [BARE, routesFile]);
}
