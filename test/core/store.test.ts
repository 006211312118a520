import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { openStore } from '../../src/core/store/store.ts';
import { makeTree } from '../helpers/index.ts';

suite('openStore()', () => {
  test('creates the file 0600, migrates to the current schema and reopens it', (t) => {
    const dir = makeTree(t);
    const file = join(dir, 'projdex.db');
    const store = openStore(file, { now: () => 5_000 });
    store.insertProject({ name: 'a', path: '/srv/a' });
    store.close();
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const again = openStore(file);
    assert.deepEqual(again.listProjects(), [{ id: 1, name: 'a', path: '/srv/a', description: null, framework: null, tags: [], last_scanned: null, created_at: 5, last_run: null, git: null, git_note: null }]);
    assert.equal(again.integrityCheck(), 'ok');
    again.close();
  });

  test('refuses a database written by a newer schema, in one sentence', async (t) => {
    const dir = makeTree(t);
    const file = join(dir, 'projdex.db');
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(file);
    db.exec('PRAGMA user_version = 99');
    db.close();
    assert.throws(() => openStore(file), { message: /newer projdex \(schema 99; this one knows \d+\)/ });
  });

  test('insertProject returns undefined for a path already registered', () => {
    const store = openStore(':memory:');
    assert.ok(store.insertProject({ name: 'a', path: '/x' }));
    assert.equal(store.insertProject({ name: 'b', path: '/x' }), undefined);
    assert.equal(store.listProjects().length, 1);
  });

  test('saveScan replaces tests and ports in one go, keeping ids of files still found', () => {
    let clock = 1_000_000;
    const store = openStore(':memory:', { now: () => clock });
    const { id } = store.insertProject({ name: 'a', path: '/x' })!;
    store.saveScan(id, {
      tests: [{ file: 'b.test.js', framework: 'jest', cases: 2 }, { file: 'a.test.js', framework: 'jest' }],
      ports: [{ port: 5173, script_name: 'dev', config_source: 'package.json' }, { port: 3000, script_name: null, config_source: '.env' }],
      framework: 'vite',
    });
    const first = store.listTests(id);
    assert.deepEqual(first.map((x) => [x.file_path, x.cases]), [['a.test.js', null], ['b.test.js', 2]]);
    assert.deepEqual(store.listPorts(id).map((p) => p.port), [3000, 5173]);
    clock = 2_000_000;
    store.saveScan(id, { tests: [{ file: 'b.test.js', framework: 'vitest', cases: 3 }], ports: [], framework: 'next' });
    const second = store.listTests(id);
    assert.equal(second.length, 1);
    assert.equal(second[0]!.id, first[1]!.id);
    assert.equal(second[0]!.framework, 'vitest');
    assert.equal(second[0]!.cases, 3);
    assert.equal(second[0]!.created_at, 1000);
    assert.deepEqual(store.listPorts(id), []);
    assert.equal(store.getProject(id)!.framework, 'vite');
    assert.equal(store.getProject(id)!.last_scanned, 2000);
    // A file no longer countable goes back to null rather than keeping the old count.
    store.saveScan(id, { tests: [{ file: 'b.test.js', framework: 'vitest' }], ports: [], framework: null });
    assert.deepEqual(store.listTests(id).map((x) => [x.id, x.framework, x.cases]), [[first[1]!.id, 'vitest', null]]);
  });

  test('a save writes every row as given: more rows and longer paths than a statement takes, odd text', () => {
    const store = openStore(':memory:');
    const { id } = store.insertProject({ name: 'a', path: '/x' })!;
    const many = Array.from({ length: 4_321 }, (_, i) => ({
      file: `p/${String(i).padStart(5, '0')}.test.js`, framework: 'jest' as const,
      ...(i % 3 ? { cases: i % 7 } : {}),
    }));
    const deep = `${'d/'.repeat(700_000)}deep.test.js`;
    const odd = [
      { file: 'q/lone \ud800 high.test.js', framework: 'vitest' as const, cases: 1 },
      { file: 'q/ünï 🚀 "q" \\ \t.test.js', framework: 'mocha' as const },
    ];
    const first = { file: deep, framework: 'vitest' as const, cases: 0 };
    store.saveScan(id, { tests: [first, ...many, ...odd], ports: [], framework: null });
    const rows = store.listTests(id);
    assert.equal(rows.length, many.length + 3);
    const byFile = new Map(rows.map((row) => [row.file_path, row]));
    for (const t of many) assert.equal(byFile.get(t.file)?.cases, t.cases ?? null, t.file);
    // New rows take their ids in the order given.
    const ids = many.map((t) => byFile.get(t.file)!.id);
    assert.ok(ids.every((n, i) => i === 0 || n > ids[i - 1]!));
    assert.equal(byFile.get(deep)?.cases, 0);
    // A lone surrogate is stored as U+FFFD, as a bound parameter stores it.
    const kinds = [byFile.get('q/lone \ufffd high.test.js')?.framework, byFile.get(odd[1]!.file)?.framework];
    assert.deepEqual(kinds, ['vitest', 'mocha']);
  });

  test('saveScan of a deleted project writes nothing and says so', () => {
    const store = openStore(':memory:');
    assert.equal(store.saveScan(9, { tests: [{ file: 'a.test.js', framework: 'jest' }], ports: [], framework: null }), false);
    assert.deepEqual(store.listTests(9), []);
  });

  test('a failing scan write rolls back entirely', () => {
    const store = openStore(':memory:');
    const { id } = store.insertProject({ name: 'a', path: '/x' })!;
    store.saveScan(id, { tests: [{ file: 'keep.test.js', framework: 'jest' }], ports: [], framework: null });
    // A port of the wrong type makes the insert fail half-way through the transaction.
    assert.throws(() => store.saveScan(id, { tests: [{ file: 'new.test.js', framework: 'jest' }], ports: [{ port: {} as unknown as number, script_name: null, config_source: 'x' }], framework: null }));
    assert.deepEqual(store.listTests(id).map((x) => x.file_path), ['keep.test.js']);
  });

  test('deleting a project cascades to its tests and ports', () => {
    const store = openStore(':memory:');
    const { id } = store.insertProject({ name: 'a', path: '/x' })!;
    store.saveScan(id, { tests: [{ file: 'a.test.js', framework: 'jest' }], ports: [{ port: 1, script_name: null, config_source: '.env' }], framework: null });
    assert.equal(store.deleteProject(id), true);
    assert.equal(store.deleteProject(id), false);
    assert.deepEqual([store.listTests(id), store.listPorts(id)], [[], []]);
  });

  test('updateProject with no fields returns the project unchanged; unknown id is undefined', () => {
    const store = openStore(':memory:');
    const created = store.insertProject({ name: 'a', path: '/x' })!;
    assert.deepEqual(store.updateProject(created.id, {}), created);
    assert.equal(store.updateProject(99, { name: 'b' }), undefined);
  });

  test('the JSON list bodies equal the mapped rows, for awkward text too', () => {
    const store = openStore(':memory:');
    const { id } = store.insertProject({ name: 'quote " back \\ tab \t nl \n ünï 🚀 \u0001', path: '/x' })!;
    store.updateProject(id, { tags: ['b', 'a'], description: null, framework: '"f"' });
    store.saveScan(id, {
      tests: [{ file: 'z "q".test.js', framework: 'jest', cases: 1 }, { file: 'a.test.js', framework: 'jest' }],
      ports: [{ port: 8080, script_name: null, config_source: '.env' }, { port: 80, script_name: 'web', config_source: 'compose.yaml' }],
      framework: null,
    });
    assert.deepEqual(JSON.parse(String(store.projectsJson())), store.listProjects());
    assert.deepEqual(JSON.parse(String(store.testsJson(id))), store.listTests(id));
    assert.deepEqual(JSON.parse(String(store.portsJson(id))), store.listPorts(id));
    assert.equal(String(store.testsJson(99)), '[]');
  });

  test('list bodies come in file order whatever the order rows were written in, whole and in pages', async () => {
    const store = openStore(':memory:');
    const { id } = store.insertProject({ name: 'p', path: '/p' })!;
    // Ids against file order: a first scan of scrambled names, then a second adding names between them.
    const names = (n: number, salt: number): string[] => Array.from({ length: n }, (_, i) => `d${(i * 7919 + salt) % 4999}/t${i}.test.js`);
    store.saveScan(id, { tests: names(1500, 3).map((file) => ({ file, framework: 'jest' })), ports: [], framework: null });
    const second = [...names(1500, 3), ...names(1300, 11).map((f) => `a/${f}`)];
    store.saveScan(id, { tests: second.map((file, i) => ({ file, framework: 'jest', cases: i % 3 })), ports: [], framework: null });
    const rows = store.listTests(id);
    assert.deepEqual(rows.map((x) => x.file_path), [...rows.map((x) => x.file_path)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    assert.notDeepEqual(rows.map((x) => x.id), [...rows.map((x) => x.id)].sort((a, b) => a - b), 'ids are not in file order');
    assert.deepEqual(JSON.parse(String(store.testsJson(id))), rows);
    const pieces: Buffer[] = [];
    for await (const piece of store.testsJsonPieces(id)) pieces.push(piece);
    assert.ok(pieces.length > 3, 'more than one page');
    assert.deepEqual(JSON.parse(Buffer.concat(pieces).toString()), rows);
  });

  test('cached bodies follow writes of this store and of another connection to the same file', (t) => {
    const file = join(makeTree(t), 'projdex.db');
    const mine = openStore(file);
    const other = openStore(file);
    t.after(() => { mine.close(); other.close(); });
    assert.equal(String(mine.projectsJson()), '[]');
    mine.insertProject({ name: 'a', path: '/a' });
    assert.equal(JSON.parse(String(mine.projectsJson())).length, 1);
    other.insertProject({ name: 'b', path: '/b' });
    assert.deepEqual(JSON.parse(String(mine.projectsJson())).map((p: { name: string }) => p.name), ['a', 'b']);
    other.updateProject(2, { name: 'c' });
    assert.deepEqual(JSON.parse(String(mine.projectsJson())).map((p: { name: string }) => p.name), ['a', 'c']);
    mine.deleteProject(1);
    assert.deepEqual(JSON.parse(String(other.projectsJson())).map((p: { name: string }) => p.name), ['c']);
  });

  test('a rescan that changes no test row keeps the cached tests body; git and scan times reach the project list', () => {
    let clock = 1_000_000;
    const store = openStore(':memory:', { now: () => clock });
    const { id } = store.insertProject({ name: 'a', path: '/x' })!;
    store.saveScan(id, { tests: [{ file: 'a.test.js', framework: 'jest', cases: 2 }], ports: [], framework: null });
    const tests = store.testsJson(id);
    const git = { branch: 'main', head: 'abc', dirty: false, ahead: null, behind: null, last_commit_at: 5 };
    assert.equal(store.setGitState(id, { state: git, note: null }), true);
    const listed = store.projectsJson();
    assert.equal(JSON.parse(String(listed))[0].git.head, 'abc');
    // The same state again writes nothing: the project list's body stays too.
    assert.equal(store.setGitState(id, { state: { ...git }, note: null }), true);
    assert.equal(store.projectsJson(), listed);
    clock += 60_000;
    store.setGitState(id, { state: { ...git, dirty: true }, note: null });
    assert.equal(store.saveScan(id, { tests: [], ports: [], framework: null, mode: 'unchanged' }), true);
    assert.equal(store.testsJson(id), tests, 'the same bytes, not rebuilt');
    assert.deepEqual(store.testsJson(id), store.testsJson(id));
    const [project] = JSON.parse(String(store.projectsJson()));
    assert.deepEqual([project.git.dirty, project.last_scanned], [true, 1060]);
    assert.equal(store.setGitState(id + 1, { state: null, note: 'no git repository' }), false);
  });

  test('an unchanged save never reads the scan\'s tests; bigList follows writes of this store and of another connection', (t) => {
    const file = join(makeTree(t), 'projdex.db');
    const mine = openStore(file);
    const other = openStore(file);
    t.after(() => { mine.close(); other.close(); });
    const { id } = mine.insertProject({ name: 'a', path: '/x' })!;
    const unread = Object.defineProperty({ ports: [], framework: null, mode: 'unchanged' as const }, 'tests', {
      get: () => assert.fail('the tests of an unchanged scan were read'),
    }) as unknown as Parameters<typeof mine.saveScan>[1];
    assert.equal(mine.saveScan(id, unread), true);
    assert.equal(mine.bigList(id), false);
    const many = Array.from({ length: 10_001 }, (_, i) => ({ file: `t${i}.test.js`, framework: 'jest' as const }));
    mine.saveScan(id, { tests: many, ports: [], framework: null });
    assert.equal(mine.bigList(id), true);
    other.saveScan(id, { tests: many.slice(1), ports: [], framework: null });
    assert.equal(mine.bigList(id), false);
    other.saveScan(id, { tests: [...many, { file: `${'d/'.repeat(150)}x.test.js`, framework: 'jest' }], ports: [], framework: null });
    assert.equal(mine.bigList(id), true);
  });

  test('a list body is served from cache until a write, except bodies over 4 MiB', () => {
    const store = openStore(':memory:');
    const { id } = store.insertProject({ name: 'a', path: '/x' })!;
    store.saveScan(id, { tests: [{ file: 'a.test.js', framework: 'jest' }], ports: [], framework: null });
    const small = store.testsJson(id);
    assert.equal(store.testsJson(id), small);
    store.updateProject(id, { name: 'b' });
    assert.notEqual(store.testsJson(id), small);
    const many = Array.from({ length: 30_000 }, (_, i) => ({ file: `packages/p${i % 50}/src/some/deeper/folder/file-${i}.test.ts`, framework: 'vitest' as const }));
    store.saveScan(id, { tests: many, ports: [], framework: null });
    const big = store.testsJson(id);
    assert.ok(big.length > 4 * 1024 * 1024, `${big.length} bytes`);
    assert.notEqual(store.testsJson(id), big);
    assert.deepEqual(store.testsJson(id), big);
  });
});
