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
export { createRandom as seededRandom } from '../bench/tree.ts';

/** Absolute path of a committed fixture project under test/fixtures/. */
export function fixture(name: string): string {
  return join(import.meta.dirname, 'fixtures', name);
}

import { startServer, type ServerOptions, type RunningServer } from '../src/server.ts';

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
