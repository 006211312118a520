import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { suite, test, type TestContext } from 'node:test';
import { createScanner } from '../../src/core/scanner.ts';
import { openStore } from '../../src/core/store/store.ts';
import { call, makeTree, serve } from '../helpers/index.ts';

// A scan that never ends: a preload (given to scan processes through NODE_OPTIONS) makes opening any file
// below a directory whose name holds `stall-` spin forever, as a hung mount or a runaway parser would.
// Directories are opened as usual (the walk lists each one through a descriptor), so the walk ends and
// the first file a rule reads hangs. It patches Node's fs in the scan process only; projdex's own code
// runs unchanged.
const STALL = `import fs from 'node:fs'; import { syncBuiltinESMExports } from 'node:module';
const open = fs.openSync;
const DIR = fs.constants.O_DIRECTORY;
fs.openSync = (path, flags, ...rest) => {
  if (String(path).includes('stall-') && !(typeof flags === 'number' && (flags & DIR))) for (;;);
  return open(path, flags, ...rest);
};
syncBuiltinESMExports();`;

const PROJECT = {
  'package.json': JSON.stringify({ scripts: { test: 'vitest' }, devDependencies: { vitest: '^3.0.0' } }),
  'src/a.test.ts': "test('a', () => {});",
};

/** Scan processes started while this is in effect load the stalling preload. */
function withStallPreload(t: TestContext): void {
  const dir = makeTree(t, { 'stall.mjs': STALL }, 'projdex-preload-');
  const before = process.env.NODE_OPTIONS;
  process.env.NODE_OPTIONS = `${before ?? ''} --import=${pathToFileURL(join(dir, 'stall.mjs')).href}`.trim();
  t.after(() => { if (before === undefined) delete process.env.NODE_OPTIONS; else process.env.NODE_OPTIONS = before; });
}

suite('scans run in their own processes', { timeout: 120_000 }, () => {
  test('a stalled scan is killed at its deadline with the file it was reading; other scans and /health go on', async (t) => {
    withStallPreload(t);
    const stalled = makeTree(t, PROJECT, 'projdex-stall-');
    const healthy = makeTree(t, PROJECT);
    // A deadline the healthy scan meets with a wide margin even on a loaded machine; the stalled one never does.
    const { url } = await serve(t, { scanWorker: { deadlineMs: 20_000, processes: 2 } });
    await call(`${url}/api/projects`, 'POST', { name: 'stuck', path: stalled });
    await call(`${url}/api/projects`, 'POST', { name: 'fine', path: healthy });
    const stuck = call(`${url}/api/projects/1/scan`, 'POST');
    // While one scan spins, the other process answers and the server stays responsive.
    const fine = await call(`${url}/api/projects/2/scan`, 'POST');
    assert.equal(fine.status, 200, JSON.stringify(fine.body));
    assert.deepEqual(fine.body.tests.map((x: { file_path: string }) => x.file_path), ['src/a.test.ts']);
    assert.equal((await call(`${url}/health`)).status, 200);
    const res = await stuck;
    assert.equal(res.status, 504);
    assert.equal(res.body.error, 'Scan stopped after 20 s (its deadline) while reading package.json');
    // The killed process was replaced: the next scan runs.
    assert.equal((await call(`${url}/api/projects/2/scan`, 'POST')).status, 200);
  });

  test('close() ends a stalled scan after the grace period, and its client gets a 503', async (t) => {
    withStallPreload(t);
    const stalled = makeTree(t, PROJECT, 'projdex-stall-');
    const running = await serve(t, { scanWorker: { deadlineMs: 60_000, graceMs: 200 } });
    await call(`${running.url}/api/projects`, 'POST', { name: 'stuck', path: stalled });
    const scanning = call(`${running.url}/api/projects/1/scan`, 'POST');
    await new Promise((r) => setTimeout(r, 500));
    await running.close();
    const res = await scanning;
    assert.equal(res.status, 503);
    assert.match(res.body.error, /^The server is shutting down: the scan was stopped/);
  });

  test('SIGTERM stops the bin while a scan is stalled', async (t) => {
    withStallPreload(t);
    const stalled = makeTree(t, PROJECT, 'projdex-stall-');
    const dataDir = makeTree(t);
    const child = spawn(process.execPath, [join(import.meta.dirname, '..', '..', 'src', 'bin.ts'), '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    t.after(() => { clearTimeout(killer); child.kill('SIGKILL'); });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => { out += d; const m = /listening on (\S+)/.exec(out); if (m) resolve(m[1]!); });
      child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
    });
    await call(`${url}/api/projects`, 'POST', { name: 'stuck', path: stalled });
    const scanning = call(`${url}/api/projects/1/scan`, 'POST').catch((error: Error) => error);
    await new Promise((r) => setTimeout(r, 500));
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0);
    const res = await scanning;
    assert.ok(res instanceof Error || res.status === 503, 'the stalled scan got no success');
  });

  test('POST /api/projects/scan/all runs scans side by side and answers in id order', async (t) => {
    const roots = [0, 1, 2, 3].map((i) => makeTree(t, { ...PROJECT, [`src/only-${i}.test.ts`]: "test('x', () => {});" }));
    const { url } = await serve(t, { scanWorker: { processes: 2 } });
    for (const [i, path] of roots.entries()) await call(`${url}/api/projects`, 'POST', { name: `p${i}`, path });
    const res = await call(`${url}/api/projects/scan/all`, 'POST');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.map((r: { project: { id: number } }) => r.project.id), [1, 2, 3, 4]);
    assert.deepEqual(res.body.map((r: { tests: Array<{ file_path: string }> }) => r.tests.map((x) => x.file_path)[1]), ['src/only-0.test.ts', 'src/only-1.test.ts', 'src/only-2.test.ts', 'src/only-3.test.ts']);
  });

  test('scanProject reports progress while it walks and the exact count at the end', async (t) => {
    const files: Record<string, string> = { ...PROJECT };
    for (let i = 0; i < 300; i++) files[`src/d${i % 20}/f${i}.test.ts`] = "test('x', () => {});";
    const root = makeTree(t, files);
    const store = openStore(':memory:');
    const scanner = createScanner(store);
    t.after(async () => { await scanner.close(); store.close(); });
    const project = store.insertProject({ name: 'p', path: root })!;
    const seen: Array<{ files: number; tests: number }> = [];
    const outcome = await scanner.scanProject(project, { onProgress: (p) => seen.push(p) });
    assert.equal(outcome.testsFound, 301);
    assert.deepEqual(seen.at(-1), { files: 302, tests: 301 });
  });

  test('the root is checked at every scan: a directory swapped for a link is refused with a 409', async (t) => {
    const root = makeTree(t, PROJECT);
    const elsewhere = makeTree(t, { 'secret/a.test.ts': "test('x', () => {});" });
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'p', path: root });
    assert.equal((await call(`${url}/api/projects/1/scan`, 'POST')).status, 200);
    renameSync(root, `${root}-moved`);
    symlinkSync(elsewhere, root);
    t.after(() => rmSync(`${root}-moved`, { recursive: true, force: true }));
    const res = await call(`${url}/api/projects/1/scan`, 'POST');
    assert.equal(res.status, 409);
    assert.match(res.body.error, /is now a link to another place: not scanned/);
    // Nothing changed: the tests of the last good scan are still there.
    assert.deepEqual((await call(`${url}/api/projects/1/tests`)).body.map((x: { file_path: string }) => x.file_path), ['src/a.test.ts']);
  });
});
