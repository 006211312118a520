import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { join } from 'node:path';

export const BIN = join(import.meta.dirname, '..', '..', 'src', 'bin.ts');

/** Every child gets this long at most; a hung CLI fails its test instead of the run. */
export const DEADLINE_MS = 30_000;

// Ports below 32768 (outside Linux's ephemeral range, so no client socket holds one), a block per test
// run picked from the pid, and a fresh slice of it per `portRange()` call.
const BASE = 20_000 + (process.pid % 120) * 100;
let nextSlice = 0;

/** A `PROJDEX_PORT_RANGE` value of five ports no other test of this run uses. */
export function portRange(): string {
  const start = BASE + (nextSlice++ % 20) * 5;
  return `${start}-${start + 4}`;
}

export interface Run { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/** Runs the bin to completion with a deadline. */
export function run(args: readonly string[], env: Record<string, string | undefined> = {}, options: SpawnOptions = {}): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: DEADLINE_MS, ...options });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export interface Started { child: ChildProcess; url: string; stdout: () => string; stderr: () => string; exited: Promise<number | null> }

/** Waits until `text` matches `pattern`, or rejects after `ms`. */
export function waitFor(read: () => string, pattern: RegExp, ms = DEADLINE_MS): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = (): void => {
      const m = pattern.exec(read());
      if (m) return resolve(m);
      if (Date.now() - started > ms) return reject(new Error(`timed out waiting for ${pattern}; got: ${read()}`));
      setTimeout(tick, 20);
    };
    tick();
  });
}

/** Starts `projdex serve` (or any server command line) and resolves once it printed its URL. */
export async function start(t: { after(fn: () => unknown): void }, args: readonly string[], env: Record<string, string | undefined> = {}): Promise<Started> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: DEADLINE_MS * 2 });
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const [, url] = await Promise.race([
    waitFor(() => stdout, /^projdex listening on (http:\/\/\S+)\n/),
    exited.then((code) => { throw new Error(`exited ${code} before listening: ${stderr}`); }),
  ]);
  return { child, url: url!, stdout: () => stdout, stderr: () => stderr, exited };
}

/** True while a process with `pid` exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until `check` holds, or rejects after `ms`. */
export async function eventually(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`timed out: ${what}`);
    await new Promise((done) => setTimeout(done, 25));
  }
}
