import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Minimal view of node:test's TestContext that the helpers need, so they work in hooks too. */
interface AfterHook { after(fn: () => unknown): void }

/**
 * Creates a fresh temp directory (real path, so symlinked /tmp does not matter), removed after the test.
 * `files` maps relative POSIX paths to contents; a path ending in '/' makes an empty directory.
 */
export function makeTree(t: AfterHook, files: Record<string, string> = {}, prefix = 'projdex-'): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  writeTree(root, files);
  return root;
}

/** Writes `files` (relative path -> content; trailing '/' = directory) below `root`. */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(root, rel);
    if (rel.endsWith('/')) {
      mkdirSync(abs, { recursive: true });
    } else {
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, content);
    }
  }
}

/** A seeded PRNG (mulberry32, the one the benchmark's tree generator uses): a failing random schedule replays by its seed. */
export { createRandom as seededRandom } from '../../bench/tree.ts';

/** Absolute path of a committed fixture project under test/fixtures/. */
export function fixture(name: string): string {
  return join(import.meta.dirname, '..', 'fixtures', name);
}

import { startServer, type ServerOptions, type RunningServer } from '../../src/server/server.ts';

/** Collects what the server logs, instead of printing it. */
export function memoryLogger(): { error(...args: unknown[]): void; lines: unknown[][] } {
  const lines: unknown[][] = [];
  return { lines, error: (...args: unknown[]) => { lines.push(args); } };
}

/** Starts a real server on port 0 with an in-memory database (unless options say otherwise), closed after the test. */
export async function serve(t: AfterHook, options: ServerOptions = {}): Promise<RunningServer & { logs: unknown[][] }> {
  const logger = memoryLogger();
  const running = await startServer({ port: 0, logger, ...options });
  t.after(() => running.close());
  return Object.assign(running, { logs: logger.lines });
}

/** `fetch` with a JSON body; returns status, headers and the parsed body (undefined when empty). */
export async function call(url: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

import { spawn, type ChildProcess } from 'node:child_process';

/** The bin the CLI tests run (TypeScript, through the pinned Node's type stripping). */
export const BIN = join(import.meta.dirname, '..', '..', 'src', 'bin.ts');

/** The test's environment without PROJDEX_* variables, which would change a child's host, token or ports. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PROJDEX_')));
  return { ...env, ...extra };
}

/**
 * Ten ports for this test run's CLI children, below Linux's ephemeral range (32768 and up) so no outgoing
 * connection takes one for a moment, and away from the default 38124..38133 another run may be using.
 * Chosen per process, so two suites running side by side rarely pick the same block.
 */
export const PORT_RANGE: readonly number[] = (() => {
  const block = (process.pid * 7919 + Math.floor(Date.now() / 1000)) % 1100;
  const first = 20_000 + block * 10;
  return Array.from({ length: 10 }, (_, i) => first + i);
})();
export const PORT_RANGE_ENV = `${PORT_RANGE[0]}-${PORT_RANGE.at(-1)}`;

export interface Child {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with stdout once it matches `pattern`; rejects (and kills the child) at the deadline or on exit. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
  /** Resolves with the exit code and signal; kills the child and rejects at the deadline. */
  exit(ms?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** How long a CLI child may take to print its URL or to exit before the test fails. */
const CHILD_DEADLINE_MS = 20_000;

/**
 * Spawns `node src/bin.ts ...args` with a clean environment (plus `env`); the child is SIGKILLed after
 * the test if still alive. Every wait on it has a deadline: a child that hangs fails the test.
 */
export function spawnBin(t: AfterHook, args: readonly string[], env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => { out += d; });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => { err += d; });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });
  const deadline = <T>(ms: number, what: string, work: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`child ${args.join(' ')}: no ${what} within ${ms} ms\nstdout: ${out}\nstderr: ${err}`));
      }, ms);
    });
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
  };
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor(pattern, ms = CHILD_DEADLINE_MS) {
      return deadline(ms, `output matching ${pattern}`, new Promise<RegExpExecArray>((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(out);
          if (match) { child.stdout!.off('data', check); resolve(match); }
        };
        child.stdout!.on('data', check);
        check();
        void exited.then(({ code, signal }) => reject(new Error(`exited ${code ?? signal} before printing ${pattern}\nstdout: ${out}\nstderr: ${err}`)));
      }));
    },
    exit: (ms = CHILD_DEADLINE_MS) => deadline(ms, 'exit', exited),
  };
}

/** Runs the bin to completion (flags that exit at once), with a deadline. */
export async function runBin(t: AfterHook, args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const running = spawnBin(t, args, env);
  const { code } = await running.exit();
  return { code, stdout: running.stdout(), stderr: running.stderr() };
}
