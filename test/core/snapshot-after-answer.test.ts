// A scan's snapshot arrives from its scan process after the findings, and is kept once they are saved, about
// when the server answers. The next rescan must still start from it, however soon it comes, and a scan process
// that dies before its snapshot is in costs the next scan its shortcuts, never its exactness.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { call, makeTree, serve } from '../helpers/index.ts';
import { scanProcesses } from '../helpers/processes.ts';
import { scan } from '../../src/scan/index.ts';
import { createScanner } from '../../src/core/scanner.ts';
import { openStore } from '../../src/core/store/store.ts';

const TREE: Record<string, string> = {
  'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29' } }),
  'src/a.test.js': "test('a', () => {});\n",
  'src/b.test.js': "test('b', () => {});\n",
  'src/util.js': 'module.exports = 1;\n',
};


test('a rescan right after an answer is incremental and exact, also once the scan process was killed', async (t) => {
  const root = makeTree(t, TREE);
  const server = await serve(t, { db: join(makeTree(t), 'projdex.db') });
  const { body: project } = await call(`${server.url}/api/projects`, 'POST', { name: 'p', path: root });
  const modes: unknown[] = [];
  server.events.subscribe((event) => { if (event.type === 'scan.finished') modes.push(event.data.mode); });
  /** Scans through the API at once (no waiting for the snapshot) and checks the answer against a full scan. */
  const rescan = async (): Promise<unknown> => {
    const answer = await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const files = answer.body.tests.map((row: { file_path: string }) => row.file_path);
    const full = (await scan(root)).tests.map((row) => row.file).sort();
    assert.deepEqual(files, full);
    return modes.at(-1);
  };
  assert.equal(await rescan(), 'full');
  // Each edit is rescanned as soon as the last answer is in: each from the snapshot the last scan kept.
  writeFileSync(join(root, 'src', 'c.test.js'), "test('c', () => {});\n");
  assert.equal(await rescan(), 'incremental');
  rmSync(join(root, 'src', 'a.test.js'));
  assert.equal(await rescan(), 'incremental');
  writeFileSync(join(root, 'src', 'util.test.js'), "test('u', () => {});\n");
  assert.equal(await rescan(), 'incremental');
  // The scan process dies right after an answer (its snapshot may not be in): the next answer is still exact.
  writeFileSync(join(root, 'src', 'd.test.js'), "test('d', () => {});\n");
  assert.equal(await rescan(), 'incremental');
  const pids = scanProcesses();
  assert.ok(pids.length > 0, 'a scan process runs');
  // Asked for at once: the server may not have seen them exit yet (the pool sends the scan again).
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  rmSync(join(root, 'src', 'b.test.js'));
  await rescan();
  // And the one after it starts from that scan's snapshot again.
  writeFileSync(join(root, 'src', 'e.test.js'), "test('e', () => {});\n");
  assert.equal(await rescan(), 'incremental');
});

test('a rescan asked for in the very turn the last scan answers waits for that scan\'s snapshot', async (t) => {
  const root = makeTree(t, TREE);
  const store = openStore(':memory:');
  const scanner = createScanner(store);
  t.after(async () => { await scanner.close(); store.close(); });
  const project = store.insertProject({ name: 'p', path: root })!;
  const full = async (): Promise<string[]> => (await scan(root)).tests.map((row) => row.file).sort();
  const listed = (): string[] => JSON.parse(store.testsJson(project.id).toString())
    .map((row: { file_path: string }) => row.file_path);
  // Its snapshot is kept only after this turn (the answer's): the rescan must not read the store first.
  const again = await scanner.scanProject(project).then((first) => {
    assert.equal(first.mode, 'full');
    writeFileSync(join(root, 'src', 'c.test.js'), "test('c', () => {});\n");
    return scanner.scanProject(store.getProject(project.id)!);
  });
  assert.equal(again.mode, 'incremental');
  assert.deepEqual(listed(), await full());
  const third = await scanner.scanProject(store.getProject(project.id)!).then(() => {
    rmSync(join(root, 'src', 'a.test.js'));
    return scanner.scanProject(store.getProject(project.id)!);
  });
  assert.equal(third.mode, 'incremental');
  assert.deepEqual(listed(), await full());
});
