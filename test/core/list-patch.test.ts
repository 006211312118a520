// After a rescan that changed a few rows, the tests list is the one it had with those rows patched in:
// byte for byte what a fresh connection builds from every row (`store.testsJson`), whatever the paths hold.
import assert from 'node:assert/strict';
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { call, makeTree, seededRandom, serve } from '../helpers/index.ts';
import { openStore } from '../../src/core/store/store.ts';

// Names whose orders differ by UTF-16 and by UTF-8 bytes (SQLite sorts by bytes), quotes and backslashes
// (escaped in JSON), and names that are prefixes of others.
const NAMES = ['a.test.js', 'a-b.test.js', 'a/b.test.js', 'B.test.js', 'é.test.js', '\uff5a.test.js', '😀.test.js',
  'q"uote.test.js', 'back\\slash.test.js', 'z/a.test.js', 'z/z.test.js'];

const TREE: Record<string, string> = {
  'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29' } }),
  ...Object.fromEntries(NAMES.filter((_, i) => i % 2 === 0).map((name) => [`src/${name}`, "test('a', () => {});\n"])),
};

test('a rescan that changed a few rows answers the stored list, byte for byte, however its paths sort', async (t) => {
  const root = makeTree(t, TREE);
  const db = join(makeTree(t), 'projdex.db');
  const server = await serve(t, { db });
  const fresh = openStore(db);
  t.after(() => fresh.close());
  const { body: project } = await call(`${server.url}/api/projects`, 'POST', { name: 'p', path: root });
  const listed = async (): Promise<string> => (await fetch(`${server.url}/api/projects/${project.id}/tests`)).text();
  await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
  await server.settled();
  assert.equal(await listed(), fresh.testsJson(project.id).toString());
  const modes: unknown[] = [];
  server.events.subscribe((event) => { if (event.type === 'scan.finished') modes.push(event.data.mode); });
  // Each step adds, edits and removes a few files; every answer is the list SQLite builds from all rows.
  const steps: Array<() => void> = [
    () => { for (const name of NAMES.filter((_, i) => i % 2 === 1)) writeFileSync(join(root, 'src', name), "test('b', () => {});\n"); },
    () => { rmSync(join(root, 'src', NAMES[0]!)); appendFileSync(join(root, 'src', NAMES[6]!), "test('c', () => {});\n"); },
    () => { rmSync(join(root, 'src', NAMES[NAMES.length - 1]!)); writeFileSync(join(root, 'src', NAMES[0]!), "test('d', () => {});\n"); },
    () => { for (const name of NAMES.slice(1, 5)) rmSync(join(root, 'src', name)); },
  ];
  for (const step of steps) {
    step();
    const answer = await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
    assert.equal(answer.status, 200);
    await server.settled();
    const expected = fresh.testsJson(project.id).toString();
    assert.deepEqual(answer.body.tests, JSON.parse(expected));
    assert.equal(await listed(), expected);
  }
  assert.ok(modes.every((mode) => mode === 'incremental'), modes.join());
  assert.equal(JSON.parse(await listed()).length, 6);
});

test('over many small saves, the patched list is the rebuilt one, row for row, at every place in the list', (t) => {
  const db = join(makeTree(t), 'projdex.db');
  const store = openStore(db);
  const fresh = openStore(db);
  t.after(() => { store.close(); fresh.close(); });
  const project = store.insertProject({ name: 'p', path: makeTree(t) })!;
  // Pieces that sort differently by UTF-16 and by UTF-8 bytes, escaped ones, and ones that make prefixes.
  const PIECES = ['a', 'b', 'z', '/', '-', '.', 'é', '\uff5a', '😀', '"', '\\', 'B', '{"id":', '\t'];
  const ENDINGS = ['.test.js', '.test.jsx', '.test.js.snap'];
  const random = seededRandom(32);
  const name = (): string => {
    let text = '';
    for (let n = 1 + Math.floor(random() * 5); n > 0; n--) text += PIECES[Math.floor(random() * PIECES.length)];
    // Endings that make one name a prefix of another (`a.test.js`, `a.test.jsx`, `a.test.js.snap`).
    return `${text}${ENDINGS[Math.floor(random() * ENDINGS.length)]}`;
  };
  const files = new Map<string, number>();
  while (files.size < 300) files.set(name(), 1);
  const snapshot = new Uint8Array([1]);
  const rows = () => [...files].map(([file, cases]) => ({ file, framework: 'jest' as const, cases }));
  assert.ok(store.saveScan(project.id, { tests: rows(), ports: [], framework: null, snapshot }));
  for (let round = 0; round < 40; round++) {
    store.testsJson(project.id); // kept by this connection, so the next small save patches it
    const base = store.getSnapshot(project.id)!.generation;
    const upserts: Array<{ file: string; framework: 'jest'; cases: number }> = [];
    const removed: string[] = [];
    const known = [...files.keys()];
    for (let n = 0; n < 1 + Math.floor(random() * 12); n++) {
      const pick = random();
      const file = pick < 0.6 ? known[Math.floor(random() * known.length)]! : name();
      if (upserts.some((row) => row.file === file) || removed.includes(file)) continue;
      if (pick < 0.3 && files.has(file)) { removed.push(file); files.delete(file); continue; }
      files.set(file, round + 2);
      upserts.push({ file, framework: 'jest', cases: round + 2 });
    }
    const delta = { upserts, removed };
    assert.ok(store.saveScan(project.id, { tests: rows(), ports: [], framework: null, snapshot, mode: 'incremental', delta, base }));
    assert.equal(store.testsJson(project.id).toString(), fresh.testsJson(project.id).toString(), `round ${round}`);
  }
  assert.equal(JSON.parse(fresh.testsJson(project.id).toString()).length, files.size);
});
