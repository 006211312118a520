// Big saves go through the staging table (src/core/store/staging.ts): readers and a reopened database see
// the previous scan whole until the save's last transaction, and a failed save changes nothing.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { suite, test } from 'node:test';
import { openStore, sqliteFailure, type ScanRecord, type Store } from '../../src/core/store/store.ts';
import { makeTree } from '../helpers/index.ts';

const tests = (from: number, to: number, cases: number) =>
  Array.from({ length: to - from }, (_, i) => ({ file: `src/t${String(from + i).padStart(6, '0')}.test.js`, framework: 'jest' as const, cases }));

const OLD: ScanRecord = {
  tests: tests(0, 3000, 1), ports: [{ port: 3000, script_name: 'dev', config_source: 'package.json' }], framework: 'vite',
  notes: ['old note'], snapshot: new Uint8Array([1, 2, 3]),
};

/** Everything a client can read of the project's last scan. */
function stored(store: Store, id: number) {
  return {
    tests: store.listTests(id).map(({ created_at: _, ...row }) => row),
    ports: store.listPorts(id, 'all').map(({ created_at: _, last_detected: __, ...row }) => row),
    summary: store.getScanSummary(id).notes,
    snapshot: store.getSnapshot(id),
  };
}

const stagedRows = (file: string): number => {
  const db = new DatabaseSync(file, { readOnly: true });
  try { return Number(db.prepare('SELECT count(*) AS n FROM scan_staging').get()?.n); } finally { db.close(); }
};

suite('a big save through the staging table', () => {
  test('a save that fills the disk midway leaves the previous scan exactly, also after reopening', async (t) => {
    const file = join(makeTree(t), 'projdex.db');
    const store = openStore(file, { maxBytes: 2 * 1024 * 1024 });
    t.after(() => store.close());
    const { id } = store.insertProject({ name: 'p', path: '/p' })!;
    assert.equal(await store.saveScanSliced(id, OLD), true);
    const before = stored(store, id);
    assert.equal(before.tests.length, 3000);
    assert.ok(before.snapshot);
    // Kept files with new counts, and far more new rows than 2 MiB holds: slices commit, then one fails.
    const saving = store.saveScanSliced(id, {
      tests: [...tests(1000, 3000, 7), ...tests(3000, 60_000, 2)], ports: [{ port: 4000, script_name: null, config_source: '.env' }],
      framework: null, notes: ['new note'], snapshot: new Uint8Array([9]),
    });
    let settled = false;
    const outcome = saving.then(() => 'saved', (error: Error) => error.message).finally(() => { settled = true; });
    let staged = 0;
    while (!settled) {
      staged = Math.max(staged, stagedRows(file));
      assert.equal(store.countTests(id), 3000, 'readers see the old list while the save runs');
      await new Promise((r) => setTimeout(r, 1));
    }
    assert.ok(staged > 0, 'slices were committed to staging before the disk was full');
    assert.match(await outcome, /database or disk is full/);
    assert.deepEqual(stored(store, id), before);
    assert.equal(stagedRows(file), 0, 'the failed save discarded what it staged');
    store.close();
    const again = openStore(file);
    t.after(() => again.close());
    assert.deepEqual(stored(again, id), before);
  });

  test('whatever the size limit, a save lands whole or fails with 507 and leaves the old scan, last transaction included', async (t) => {
    // 1.5 MiB fills up while staging, 2.5 MiB in the last transaction (the apply thread's), 4.5 MiB holds it all.
    const outcomes = new Set<string>();
    for (const mib of [1.5, 2.5, 4.5]) {
      const file = join(makeTree(t), 'projdex.db');
      const store = openStore(file, { maxBytes: mib * 1024 * 1024 });
      try {
        const { id } = store.insertProject({ name: 'p', path: '/p' })!;
        await store.saveScanSliced(id, { ...OLD, tests: tests(0, 1500, 1) });
        const before = stored(store, id);
        const outcome = await store.saveScanSliced(id, { tests: tests(0, 20_000, 2), ports: [], framework: null })
          .then(() => 'saved', (error: unknown) => String(sqliteFailure(error)?.status));
        outcomes.add(outcome);
        if (outcome === 'saved') assert.equal(store.countTests(id), 20_000);
        else assert.deepEqual([outcome, stored(store, id)], ['507', before], `${mib} MiB`);
        assert.equal(stagedRows(file), 0);
      } finally {
        store.close();
      }
    }
    assert.deepEqual([...outcomes].sort(), ['507', 'saved']);
  });

  test('a finished save: the new list at once, ids kept for files still found, nothing left staged', async (t) => {
    const file = join(makeTree(t), 'projdex.db');
    const store = openStore(file);
    t.after(() => store.close());
    const { id } = store.insertProject({ name: 'p', path: '/p' })!;
    await store.saveScanSliced(id, OLD);
    const ids = new Map(store.listTests(id).map((x) => [x.file_path, x.id]));
    // Awkward text too: quotes, a backslash, an emoji, a lone surrogate (stored as U+FFFD), no count.
    const odd: Array<{ file: string; framework: 'jest'; cases?: number }> = [
      { file: 'src/u "q" \\ 🚀.test.js', framework: 'jest' },
      { file: 'src/v \ud800.test.js', framework: 'jest' },
    ];
    const next = [...tests(0, 1000, 1), ...tests(1000, 2000, 5), ...tests(5000, 6998, 0), ...odd];
    const saving = store.saveScanSliced(id, { tests: next, ports: [], framework: null, snapshot: new Uint8Array([4]) });
    let settled = false;
    void saving.finally(() => { settled = true; });
    const seen = new Set<number>();
    while (!settled) {
      seen.add(store.countTests(id));
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(await saving, true);
    assert.deepEqual([...seen].filter((n) => n !== 3000 && n !== 4000), [], 'only the old or the new count was ever seen');
    const after = store.listTests(id);
    const expected = next.map((x) => [x.file.toWellFormed(), x.cases ?? null]);
    assert.deepEqual(after.map((x) => [x.file_path, x.cases]), expected);
    assert.equal(after.at(-1)?.file_path, 'src/v \ufffd.test.js');
    for (const row of after) if (ids.has(row.file_path)) assert.equal(row.id, ids.get(row.file_path));
    assert.ok(after.filter((row) => !ids.has(row.file_path)).every((row) => row.id > Math.max(...ids.values())));
    assert.deepEqual(store.getSnapshot(id)?.data, new Uint8Array([4]));
    assert.equal(stagedRows(file), 0);
  });

  test('the last transaction drops what the save staged: the new list is never seen beside staged rows', async (t) => {
    const file = join(makeTree(t), 'projdex.db');
    const store = openStore(file);
    t.after(() => store.close());
    const { id } = store.insertProject({ name: 'p', path: '/p' })!;
    const reader = new DatabaseSync(file, { readOnly: true });
    t.after(() => reader.close());
    // One statement, one snapshot of the database: the list's size and the staged rows at the same instant.
    const look = reader.prepare('SELECT (SELECT count(*) FROM tests WHERE project_id = ?) AS n, (SELECT count(*) FROM scan_staging) AS s');
    // A stored list, so the big save stages (a first one is saved whole).
    store.saveScan(id, { tests: tests(0, 1, 1), ports: [], framework: null });
    const saving = store.saveScanSliced(id, { tests: tests(0, 60_000, 1), ports: [], framework: null });
    let settled = false;
    void saving.finally(() => { settled = true; });
    const seen = new Set<string>();
    while (!settled) {
      const { n, s } = look.get(id)!;
      seen.add(Number(n) === 1 ? 'old' : Number(s) === 0 ? 'new' : `new list beside ${s} staged rows`);
      await new Promise((r) => setTimeout(r, 1));
    }
    assert.equal(await saving, true);
    assert.deepEqual([...seen].filter((x) => x !== 'old' && x !== 'new'), []);
    assert.equal(store.countTests(id), 60_000);
    assert.equal(stagedRows(file), 0);
  });

  test('a first big save is one transaction of the apply thread: nothing staged, the whole list or none', async (t) => {
    const file = join(makeTree(t), 'projdex.db');
    const store = openStore(file);
    t.after(() => store.close());
    const { id } = store.insertProject({ name: 'p', path: '/p' })!;
    const record: ScanRecord = { ...OLD, tests: tests(0, 20_000, 3) };
    const saving = store.saveScanSliced(id, record);
    let settled = false;
    void saving.finally(() => { settled = true; });
    const seen = new Set<number>();
    let staged = 0;
    while (!settled) {
      seen.add(store.countTests(id));
      staged = Math.max(staged, stagedRows(file));
      await new Promise((r) => setTimeout(r, 1));
    }
    assert.equal(await saving, true);
    assert.deepEqual([...seen].filter((n) => n !== 0 && n !== 20_000), [], 'only no list or the whole list was seen');
    assert.equal(staged, 0, 'nothing was staged');
    assert.deepEqual(store.listTests(id).map((x) => [x.file_path, x.framework, x.cases]), record.tests.map((x) => [x.file, 'jest', 3]));
    assert.deepEqual(stored(store, id).ports, [{ id: 1, project_id: id, port: 3000, script_name: 'dev', config_source: 'package.json', kind: 'listen' }]);
    assert.deepEqual([stored(store, id).summary, store.getSnapshot(id)?.data], [['old note'], new Uint8Array([1, 2, 3])]);
    // A disk too small for it: 507, and the project stays as it was (no tests, no scan).
    const small = openStore(join(makeTree(t), 'projdex.db'), { maxBytes: 1024 * 1024 });
    t.after(() => small.close());
    const other = small.insertProject({ name: 'q', path: '/q' })!;
    const failed = await small.saveScanSliced(other.id, record).then(() => 'saved', (error: unknown) => String(sqliteFailure(error)?.status));
    assert.deepEqual([failed, small.countTests(other.id), small.getProject(other.id)?.last_scanned, small.getSnapshot(other.id)], ['507', 0, null, undefined]);
  });

  test('a first big save hands over its list as saved, the bytes testsJson gives; a later save does not', async (t) => {
    const store = openStore(join(makeTree(t), 'projdex.db'));
    t.after(() => store.close());
    const { id } = store.insertProject({ name: 'p', path: '/p' })!;
    const lists: Buffer[] = [];
    const onList = (body: Buffer): void => { lists.push(body); };
    assert.equal(await store.saveScanSliced(id, { ...OLD, tests: tests(0, 4000, 2) }, { onList }), true);
    assert.equal(lists.length, 1);
    assert.equal(lists[0]!.toString(), store.testsJson(id).toString());
    assert.equal(JSON.parse(lists[0]!.toString()).length, 4000);
    assert.equal(await store.saveScanSliced(id, { ...OLD, tests: tests(0, 5000, 3) }, { onList }), true);
    assert.equal(lists.length, 1, 'a save over stored rows stages, and builds no list');
  });

  test('every way of saving names the generation it wrote; a later snapshot sticks to that one', async (t) => {
    const store = openStore(join(makeTree(t), 'projdex.db'));
    t.after(() => store.close());
    const { id } = store.insertProject({ name: 'p', path: '/p' })!;
    const generations: number[] = [];
    const onSaved = (generation: number): void => { generations.push(generation); };
    const noSnapshot = { ...OLD, snapshot: null };
    const save = (record: Partial<ScanRecord>) =>
      store.saveScanSliced(id, { ...noSnapshot, ...record }, { onSaved });
    // A first big save (whole, in the apply thread), a big one over stored rows (staged), a small one, and an
    // unchanged one (no new generation): each reports the generation the project then has.
    assert.equal(await save({ tests: tests(0, 4000, 2) }), true);
    assert.equal(await save({ tests: tests(0, 5000, 3) }), true);
    assert.equal(await save({ tests: tests(0, 5, 1) }), true);
    assert.equal(await save({ tests: [], mode: 'unchanged' }), true);
    assert.deepEqual(generations, [1, 2, 3, 3]);
    assert.equal(store.getSnapshot(id), undefined, 'a save without a snapshot drops the kept one');
    // The snapshot of the save at generation 3 is kept; one of an earlier save is refused, changing nothing.
    assert.equal(store.keepSnapshot(id, 2, new Uint8Array([2])), false);
    assert.equal(store.getSnapshot(id), undefined);
    assert.equal(store.keepSnapshot(id, 3, new Uint8Array([3])), true);
    assert.deepEqual(store.getSnapshot(id), { data: new Uint8Array([3]), generation: 3 });
    // A save that found the project gone names nothing.
    store.deleteProject(id);
    assert.equal(await save({ tests: tests(0, 5, 1) }), false);
    assert.deepEqual(generations, [1, 2, 3, 3]);
    assert.equal(store.keepSnapshot(id, 3, new Uint8Array([3])), false);
  });

  test('of two saves of one project running together, the first to finish wins and the other answers false', async (t) => {
    const store = openStore(':memory:');
    t.after(() => store.close());
    const { id } = store.insertProject({ name: 'p', path: '/p' })!;
    const slow = store.saveScanSliced(id, { tests: tests(0, 30_000, 1), ports: [], framework: null });
    const quick = store.saveScan(id, { tests: tests(0, 5, 3), ports: [], framework: null });
    assert.equal(quick, true);
    assert.equal(await slow, false);
    assert.deepEqual(store.listTests(id).map((x) => x.cases), [3, 3, 3, 3, 3]);
  });

  test('rows staged by a save that never finished are discarded when the database is opened', async (t) => {
    const file = join(makeTree(t), 'projdex.db');
    openStore(file).close();
    const db = new DatabaseSync(file);
    db.exec("INSERT INTO scan_staging (save_id, file_path, framework, cases, change) VALUES (7, 'a.test.js', 'jest', 1, 1)");
    db.close();
    assert.equal(stagedRows(file), 1);
    openStore(file).close();
    assert.equal(stagedRows(file), 0);
  });
});
