// Bench-only walker variant: the same walk, done synchronously (readdirSync) on a worker thread, so the
// main thread only pays for receiving the result. `use-worker-walk.ts` swaps it in for
// src/scan/walk.ts; healthSuite compares the two. Same exports and result as src/scan/walk.ts.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { readdirSync, type Dirent } from 'node:fs';
import { PRUNED_DIRS, walk as asyncWalk, type WalkOptions } from '../../src/scan/walk.ts';
import type { Tree } from '../../src/scan/types.ts';

export { PRUNED_DIRS, type WalkFs, type WalkOptions } from '../../src/scan/walk.ts';

interface Job { root: string; maxDepth: number; maxEntries: number; deadline: number }
interface Done { files: string; dirs: string; truncated: string | null; errors: number }

function walkSync({ root, maxDepth, maxEntries, deadline }: Job): Done {
  const files: string[] = [];
  const dirs: string[] = [''];
  const base = root.endsWith('/') ? root : root + '/';
  const stack: Array<[abs: string, rel: string, depth: number]> = [[base, '', 0]];
  let truncated: string | null = null;
  let errors = 0;
  let entries = 0;
  while (stack.length > 0 && truncated === null) {
    if (Date.now() > deadline) { truncated = 'time limit reached'; break; }
    const [abs, rel, depth] = stack.pop()!;
    let list: Dirent[];
    try {
      list = readdirSync(abs, { withFileTypes: true });
    } catch {
      errors++;
      continue;
    }
    if (depth > 0 && list.some((e) => (e.name === 'pyvenv.cfg' || e.name === 'CACHEDIR.TAG') && e.isFile())) {
      dirs.splice(dirs.lastIndexOf(rel), 1);
      continue;
    }
    for (const entry of list) {
      const childRel = rel === '' ? entry.name : rel + '/' + entry.name;
      if (entry.isDirectory()) {
        if (PRUNED_DIRS.has(entry.name)) continue;
        if (depth + 1 > maxDepth) continue;
        if (++entries > maxEntries) { truncated = `entry limit of ${maxEntries} reached`; break; }
        dirs.push(childRel);
        stack.push([abs + entry.name + '/', childRel, depth + 1]);
      } else if (entry.isFile()) {
        if (++entries > maxEntries) { truncated = `entry limit of ${maxEntries} reached`; break; }
        files.push(childRel);
      }
    }
  }
  // One string each: a single large string crosses threads far cheaper than 100k small ones.
  return { files: files.join('\0'), dirs: dirs.join('\0'), truncated, errors };
}

if (!isMainThread && (workerData as { walkJob?: Job })?.walkJob) {
  parentPort!.postMessage(walkSync((workerData as { walkJob: Job }).walkJob));
}

/** Same contract as src/scan/walk.ts `walk`; falls back to it when an option cannot cross threads. */
export async function walk(root: string, options: WalkOptions = {}): Promise<Tree & { errors: number }> {
  if (options.exclude || options.fs || options.now) return asyncWalk(root, options);
  const { maxDepth = 32, maxEntries = 1_000_000, timeoutMs = 30_000, signal } = options;
  const job: Job = { root, maxDepth, maxEntries, deadline: Date.now() + timeoutMs };
  const worker = new Worker(new URL(import.meta.url), { workerData: { walkJob: job } });
  const onAbort = (): void => { void worker.terminate(); };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const done = await new Promise<Done>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(signal?.aborted ? 'scan aborted' : `walk worker exited with ${code}`)));
    });
    const split = (s: string): string[] => (s === '' ? [] : s.split('\0'));
    return { files: split(done.files), dirs: ['', ...split(done.dirs).filter((d) => d !== '')], truncated: done.truncated, errors: done.errors };
  } finally {
    signal?.removeEventListener('abort', onAbort);
    void worker.terminate();
  }
}
