// A rescan from the last scan's snapshot must find exactly what a full scan finds, whatever changed in
// between. Seeded random edit sequences over a tree with several runner families, each step compared.
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, realpathSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite, test } from 'node:test';
import { scan, type ScanOptions, type ScanResult } from '../../../src/scan/index.ts';
import { decodeSnapshot, previousTree } from '../../../src/scan/incremental/snapshot.ts';
import { walk } from '../../../src/scan/walk/walk.ts';
import { createSnapshotKeeper, snapshotDigest } from '../../../src/scan/incremental/snapshot-cache.ts';
import { createScanCache } from '../../../src/scan/incremental/cache.ts';
import { call, makeTree, seededRandom, serve } from '../../helpers/index.ts';
import { openStore } from '../../../src/core/store/store.ts';

const BASE: Record<string, string> = {
  'package.json': JSON.stringify({ workspaces: ['packages/*'], scripts: { test: 'jest', dev: 'vite --port 5174' }, devDependencies: { jest: '^29', vite: '^7' } }),
  'jest.config.js': "module.exports = { testMatch: ['**/__tests__/**/*.js', '**/*.test.js'] };\n",
  'src/a.test.js': "test('a', () => {});\n",
  'src/__tests__/b.js': "it('b', () => {}); it('c', () => {});\n",
  'src/lib/c.js': 'export const c = 1;\n',
  'packages/web/package.json': JSON.stringify({ scripts: { test: 'vitest run' }, devDependencies: { vitest: '^3' } }),
  'packages/web/src/w.test.ts': "test('w', () => {});\n",
  'packages/web/src/w.ts': '',
  'py/pytest.ini': '[pytest]\ntestpaths = tests\n',
  'py/tests/test_one.py': 'def test_one():\n    pass\n',
  'py/tests/unit/test_two.py': 'def test_two():\n    pass\ndef test_three():\n    pass\n',
  'svc/go.mod': 'module example.com/svc\n\ngo 1.22\n',
  'svc/x_test.go': 'package svc\n\nfunc TestX(t *testing.T) {}\n',
  '.venv/pyvenv.cfg': 'home = /usr/bin\n',
  '.venv/lib/test_hidden.py': 'def test_no():\n    pass\n',
  'node_modules/dep/a.test.js': "test('no', () => {});\n",
  'docker-compose.yml': 'services:\n  web:\n    ports:\n      - "8080:80"\n',
};

const TEST_NAMES = ['n.test.js', 'n.spec.js', 'test_n.py', 'n_test.go', 'n.test.ts', 'n.js', 'conftest.py'];
const DIRS = ['', 'src', 'src/lib', 'src/__tests__', 'packages/web/src', 'py/tests', 'py/tests/unit', 'svc', 'deep/a/b', '.venv/lib'];
const CONFIGS: Record<string, string[]> = {
  'jest.config.js': [
    "module.exports = { testMatch: ['**/__tests__/**/*.js', '**/*.test.js'] };\n",
    "module.exports = { testMatch: ['**/*.spec.js'] };\n",
    "module.exports = { roots: ['<rootDir>/src'] };\n",
  ],
  'py/pytest.ini': ['[pytest]\ntestpaths = tests\n', '[pytest]\ntestpaths = tests/unit\n', '[pytest]\npython_files = *_check.py test_*.py\n'],
  'package.json': [
    BASE['package.json']!,
    JSON.stringify({ workspaces: ['packages/*'], scripts: { test: 'vitest', dev: 'vite --port 5175' }, devDependencies: { vitest: '^3', vite: '^7' } }),
  ],
};

/**
 * With `midEdit`: a workspace package's package.json now and then left mid-edit, not JSON (the package's
 * stored rows are kept, no snapshot is taken, and the delta leaves those rows alone).
 */
const MID_EDIT: Record<string, string[]> = {
  ...CONFIGS,
  'packages/web/package.json': [BASE['packages/web/package.json']!, `${BASE['packages/web/package.json']!}\nit('added', () => {});\n`],
};

/** Every file below root (relative), skipping nothing: edits may land anywhere. */
function listFiles(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = dir === '' ? e.name : `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...listFiles(root, rel)); else out.push(rel);
  }
  return out;
}

function listDirs(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = dir === '' ? e.name : `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(rel, ...listDirs(root, rel));
  }
  return out;
}

/** One random edit; returns its description for the failure message. */
function mutate(root: string, rnd: () => number, step: number, configs = CONFIGS): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const files = listFiles(root);
  const file = pick(files);
  const abs = (rel: string): string => join(root, rel);
  const write = (rel: string, text: string): void => { mkdirSync(dirname(abs(rel)), { recursive: true }); writeFileSync(abs(rel), text); };
  const cases = (rel: string, n: number): string => rel.endsWith('.py') ? 'def test_x():\n    pass\n'.repeat(n)
    : rel.endsWith('.go') ? 'package svc\n' + 'func TestX(t *testing.T) {}\n'.repeat(n) : "test('x', () => {});\n".repeat(n);
  switch (Math.floor(rnd() * 11)) {
    case 0: { const rel = `${pick(DIRS)}/${step}${pick(TEST_NAMES)}`.replace(/^\//, ''); write(rel, cases(rel, 1 + Math.floor(rnd() * 3))); return `add ${rel}`; }
    case 1: rmSync(abs(file)); return `remove ${file}`;
    case 2: { const to = `${pick(DIRS)}/${step}${pick(TEST_NAMES)}`.replace(/^\//, ''); mkdirSync(dirname(abs(to)), { recursive: true }); renameSync(abs(file), abs(to)); return `rename ${file} -> ${to}`; }
    case 3: { const dir = `f${step}/${pick(['tests', '__tests__', 'src'])}`; write(`${dir}/${pick(TEST_NAMES)}`, cases('a.js', 2)); write(`${dir}/test_k.py`, cases('a.py', 1)); return `add folder ${dir}`; }
    case 4: { const dirs = listDirs(root).filter((d) => d !== ''); const d = pick(dirs); if (d) rmSync(abs(d), { recursive: true, force: true }); return `remove folder ${d}`; }
    case 5: { const d = pick(listDirs(root)); const to = `moved${step}`; if (d && existsSync(abs(d))) renameSync(abs(d), abs(to)); return `rename folder ${d} -> ${to}`; }
    case 6: { const [rel, variants] = pick(Object.entries(configs)); write(rel, pick(variants)); return `config ${rel}`; }
    case 7: { // Edit a test file to another case count, sometimes with the same size.
      const text = readFileSync(abs(file), 'utf8');
      const next = rnd() < 0.5 ? text.replace(/test\(|it\(/, 'xxxx(').replace(/def test_/, 'def xest_') : text + cases(file, 1);
      writeFileSync(abs(file), next);
      return `edit ${file}${next.length === text.length ? ' (same size)' : ''}`;
    }
    case 8: { const now = new Date(); utimesSync(abs(file), now, now); return `touch ${file}`; }
    case 9: { // Content changes, then the mtime is put back (tar, rsync -t) or into the past (clock skew).
      const before = statSync(abs(file));
      appendFileSync(abs(file), '\n');
      const back = rnd() < 0.5 ? before.mtime : new Date(before.mtimeMs - 86_400_000);
      utimesSync(abs(file), before.atime, back);
      return `edit ${file}, mtime set back`;
    }
    default: { const d = pick(['py/tests', 'deep/a', 'src/lib', '.venv']); const marker = `${d}/pyvenv.cfg`;
      if (existsSync(abs(marker))) rmSync(abs(marker)); else write(marker, 'home = /usr\n');
      return `toggle ${marker}`; }
  }
}

/**
 * What a scan found: `runs` in the answer's order (an incremental rescan must list them as a full scan
 * does, not only hold the same ones), notes as a set.
 */
function found({ tests, ports, framework, notes, runs, truncated }: ScanResult): unknown {
  return { tests, ports, framework, notes: [...notes].sort(), runs: runs.map((r) => JSON.stringify(r)), truncated };
}

/** Which run of the rules a snapshot's result comes from. */
function rulesRun(bytes: Uint8Array | null, root: string): string | undefined {
  return decodeSnapshot(bytes, realpathSync(root), JSON.stringify([32, 1_000_000]))?.rulesRun;
}

async function sequence(t: Parameters<typeof makeTree>[0], seed: number, steps: number, options: ScanOptions,
  { older = false, midEdit = false } = {}): Promise<Record<string, number>> {
  const root = makeTree(t, BASE);
  const rnd = seededRandom(seed);
  const start = await scan(root, options);
  let previous = start.snapshot;
  const earlier: Array<Uint8Array | null> = [];
  // What each snapshot's scan found: a rescan's delta must turn exactly that list into its own.
  const testsOf = new Map<Uint8Array | null, ScanResult['tests']>([[previous, start.tests]]);
  const modes: Record<string, number> = {};
  const log: string[] = [];
  const quiet = (options.granularityMs ?? 0) + (options.racyMs ?? 2000) + 30;
  for (let step = 0; step < steps; step++) {
    const configs = midEdit ? MID_EDIT : CONFIGS;
    if (rnd() < 0.9) log.push(mutate(root, rnd, step, configs)); else log.push('(no change)');
    // Sometimes twice before a scan, sometimes a scan right after the last one (same clock tick).
    if (rnd() < 0.2) log.push(mutate(root, rnd, step + 1000, configs));
    // `older`: now and then an earlier snapshot comes back (a store whose last save failed), never the
    // decoded form of the newest one a scan process may keep.
    const from = older && earlier.length > 0 && rnd() < 0.25 ? earlier[Math.floor(rnd() * earlier.length)]! : previous;
    if (from !== previous) log.push('(an earlier snapshot)');
    earlier.push(previous);
    const incremental = await scan(root, { ...options, previous: from });
    if (incremental.delta) {
      const rows = new Map(testsOf.get(from)!.map((row) => [row.file, row]));
      for (const file of incremental.delta.removed) rows.delete(file);
      for (const row of incremental.delta.upserts) rows.set(row.file, row);
      // As the store saves a full result: its rows, and the stored ones under directories it could not read.
      const under = incremental.unreadable.map((dir) => (dir === '' ? '' : dir + '/'));
      const stored = new Map(incremental.tests.map((row) => [row.file, row]));
      for (const row of testsOf.get(from)!) {
        if (!stored.has(row.file) && under.some((prefix) => row.file.startsWith(prefix))) stored.set(row.file, row);
      }
      assert.deepEqual([...rows.values()].sort((x, y) => (x.file < y.file ? -1 : 1)),
        [...stored.values()].sort((x, y) => (x.file < y.file ? -1 : 1)),
        `seed ${seed}: the delta from the snapshot sent, after: ${log.join('; ')}`);
    }
    if (incremental.snapshot) testsOf.set(incremental.snapshot, incremental.tests);
    const full = await scan(root, options);
    assert.deepEqual(found(incremental), found(full), `seed ${seed}, after: ${log.join('; ')}`);
    modes[incremental.mode] = (modes[incremental.mode] ?? 0) + 1;
    // Counts patched into the last result: the rules did not run again (same rules run in the snapshot).
    if (incremental.mode === 'incremental' && rulesRun(incremental.snapshot, root) === rulesRun(previous, root)) modes.patched = (modes.patched ?? 0) + 1;
    previous = incremental.snapshot ?? from;
    if (rnd() < 0.15) await sleep(quiet); // Let stamps age past the racy window.
  }
  // A package.json left mid-edit keeps its package's rows and so no snapshot: edited back first.
  const web = join(root, 'packages/web/package.json');
  if (existsSync(web) && readFileSync(web, 'utf8') !== BASE['packages/web/package.json']) {
    writeFileSync(web, BASE['packages/web/package.json']!);
    log.push('packages/web/package.json edited back');
  }
  // Quiet at last: the first rescan re-stamps what was racy, the second finds nothing moved.
  await sleep(quiet);
  for (let i = 0; i < 2; i++) {
    const again = await scan(root, { ...options, previous });
    assert.deepEqual(found(again), found(await scan(root, options)), `seed ${seed}, quiet rescan ${i + 1}`);
    previous = again.snapshot ?? previous;
    if (i === 1) assert.equal(again.mode, 'unchanged');
  }
  return modes;
}

suite('incremental rescans', () => {
  test('equal full scans over a seeded random edit sequence (a 250 ms filesystem granularity simulated)', async (t) => {
    // A cache as a library caller makes one: no snapshot kept, the counting functions of rules runs kept.
    const modes = await sequence(t, 15, 50, { granularityMs: 250, racyMs: 250, cache: createScanCache() });
    assert.ok((modes.incremental ?? 0) > 0, JSON.stringify(modes));
    t.diagnostic(`modes: ${JSON.stringify(modes)}`);
  });

  test('equal full scans with real timestamps and a short racy window', async (t) => {
    const modes = await sequence(t, 16, 60, { racyMs: 20, cache: createScanCache() });
    assert.ok((modes.incremental ?? 0) > 0, JSON.stringify(modes));
    t.diagnostic(`modes: ${JSON.stringify(modes)}`);
  });

  test('equal full scans with decoded snapshots kept, as a scan process keeps them, and earlier ones sent back', async (t) => {
    const cache = createScanCache({ snapshotBytes: 8 * 1024 * 1024 });
    const modes = await sequence(t, 17, 50, { granularityMs: 250, racyMs: 250, cache }, { older: true });
    assert.ok((modes.incremental ?? 0) > 0 && (modes.unchanged ?? 0) > 0, JSON.stringify(modes));
    t.diagnostic(`modes: ${JSON.stringify(modes)}`);
  });

  test('equal full scans with a package.json now and then left mid-edit (its rows kept), snapshots kept', async (t) => {
    const cache = createScanCache({ snapshotBytes: 8 * 1024 * 1024 });
    const modes = await sequence(t, 18, 40, { racyMs: 20, cache }, { midEdit: true });
    assert.ok((modes.incremental ?? 0) > 0, JSON.stringify(modes));
    t.diagnostic(`modes: ${JSON.stringify(modes)}`);
  });

  test('with decoded snapshots kept, edits in place (every directory as it was) rerun the rules over the kept walk', async (t) => {
    const root = makeTree(t, BASE);
    const options = { racyMs: 20, cache: createScanCache({ snapshotBytes: 8 * 1024 * 1024 }) };
    await sleep(60);
    let previous = (await scan(root, options)).snapshot;
    const edits: Array<[string, () => void]> = [
      ['jest.config.js', () => writeFileSync(join(root, 'jest.config.js'), CONFIGS['jest.config.js']![1]!)],
      ['py/pytest.ini', () => writeFileSync(join(root, 'py/pytest.ini'), CONFIGS['py/pytest.ini']![1]!)],
      ['package.json and a test file', () => {
        writeFileSync(join(root, 'package.json'), CONFIGS['package.json']![1]!);
        appendFileSync(join(root, 'src/a.test.js'), "test('a2', () => {});\n");
      }],
      ['py/pytest.ini back', () => writeFileSync(join(root, 'py/pytest.ini'), CONFIGS['py/pytest.ini']![0]!)],
    ];
    for (const [what, edit] of edits) {
      await sleep(60); // the directories' stamps are past the racy window, so every directory is "as it was"
      edit();
      await sleep(60);
      const incremental = await scan(root, { ...options, previous });
      assert.equal(incremental.mode, 'incremental', what);
      // Compared with a full scan that keeps no snapshot (an `exclude` function: see scan()), so it does not
      // take the place of the one this process keeps for the next step.
      assert.deepEqual(found(incremental), found(await scan(root, { ...options, exclude: () => false })), what);
      previous = incremental.snapshot;
    }
    // The last snapshot reused its predecessor's encoded tree: decoded from its bytes alone (nothing kept),
    // it describes the tree as it is, so nothing moved.
    await sleep(60);
    const again = await scan(root, { racyMs: 20, cache: createScanCache(), previous });
    assert.equal(again.mode, 'unchanged');
    assert.deepEqual(found(again), found(await scan(root, options)));
  });

  test('a kept snapshot is taken only for the very same bytes, within the byte budget', async (t) => {
    const limits = JSON.stringify([32, 1_000_000]);
    const a = makeTree(t, BASE);
    const b = makeTree(t, { ...BASE, 'extra/e.test.js': "test('e', () => {});\n" });
    const [ra, rb] = [realpathSync(a), realpathSync(b)];
    const first = (await scan(a)).snapshot!;
    const none = createSnapshotKeeper(0);
    assert.notEqual(decodeSnapshot(first, ra, limits, none), decodeSnapshot(first, ra, limits, none), 'nothing kept by a 0-byte keeper');
    const cache = createScanCache({ snapshotBytes: 8 * 1024 * 1024 });
    const keeper = cache.snapshots;
    const sa = (await scan(a, { cache })).snapshot!;
    const kept = decodeSnapshot(sa, ra, limits, keeper);
    assert.ok(kept && kept === decodeSnapshot(Uint8Array.from(sa), ra, limits, keeper), 'equal bytes (a copy): the kept decoding');
    assert.equal(decodeSnapshot(sa, rb, limits, keeper), undefined, 'another root never takes it');
    assert.equal(decodeSnapshot(sa, ra, JSON.stringify([4, 10]), keeper), undefined, 'other limits never take it');
    const changed = Uint8Array.from(sa);
    changed[changed.length - 1]! ^= 1;
    assert.notEqual(decodeSnapshot(changed, ra, limits, keeper), kept, 'one byte differs: decoded (or refused) anew');
    // Named by their digest, the kept bytes come back only for that root and those very bytes.
    const again = decodeSnapshot(sa, ra, limits, keeper);
    const held = keeper.held(ra, snapshotDigest(sa));
    assert.ok(again && held && Buffer.from(held).equals(sa) && decodeSnapshot(held, ra, limits, keeper) === again);
    assert.equal(keeper.held(rb, snapshotDigest(sa)), undefined, 'another root');
    assert.equal(keeper.held(ra, snapshotDigest(changed)), undefined, 'other bytes');
    // The budget: two roots' snapshots do not fit in a little more than one, so the older is dropped.
    const sb = (await scan(b)).snapshot!;
    const small = createSnapshotKeeper(4 * Math.max(sa.byteLength, sb.byteLength) + 1); // one decoded snapshot: 4x its bytes
    const kb = decodeSnapshot(sb, rb, limits, small);
    assert.equal(decodeSnapshot(sb, rb, limits, small), kb);
    const ka = decodeSnapshot(sa, ra, limits, small);
    assert.ok(ka && ka === decodeSnapshot(sa, ra, limits, small), 'a decoded anew and kept');
    assert.notEqual(decodeSnapshot(sb, rb, limits, small), kb, 'b was dropped to make room for a');
    // A scan about to need the heap drops every other root's snapshot, and keeps its own.
    const [ka2, kb3] = [decodeSnapshot(sa, ra, limits, keeper), decodeSnapshot(sb, rb, limits, keeper)];
    assert.equal(decodeSnapshot(sa, ra, limits, keeper), ka2);
    keeper.drop(rb);
    assert.notEqual(decodeSnapshot(sa, ra, limits, keeper), ka2, 'a dropped');
    assert.equal(decodeSnapshot(sb, rb, limits, keeper), kb3, 'b kept');
  });

  test('a same-size edit within one clock tick of the scan is seen (the racy rule)', async (t) => {
    const root = makeTree(t, { 'package.json': '{"scripts":{"test":"jest"}}', 'a.test.js': "test('a', () => {});\n" });
    const coarse = { granularityMs: 60_000, racyMs: 60_000 }; // Every stamp in this minute looks alike.
    const first = await scan(root, coarse);
    writeFileSync(join(root, 'a.test.js'), "test('a', () => {});\n".replace('a', 'b'));
    const again = await scan(root, { ...coarse, previous: first.snapshot });
    assert.deepEqual(again.tests, [{ file: 'a.test.js', framework: 'jest', cases: 1 }]);
    assert.notEqual(again.mode, 'unchanged');
    writeFileSync(join(root, 'a.test.js'), "xxxx('a', () => {});\n");
    const third = await scan(root, { ...coarse, previous: again.snapshot });
    assert.deepEqual(third.tests, [{ file: 'a.test.js', framework: 'jest', cases: 0 }]);
  });

  test('a walk that reuses unchanged directories orders the tree as a walk that lists them all', async (t) => {
    const root = makeTree(t, Object.fromEntries(['a', 'b', 'c'].flatMap((x) => ['1', '2', '3'].flatMap((y) =>
      [[`${x}/${y}/f.js`, ''], [`${x}/${y}/g/h.js`, ''], [`${x}/k.js`, '']]))));
    const clock = { since: Date.now() + 10_000, racyMs: 0, granularityMs: 0 };
    let snapshot = (await scan(root, { racyMs: 0 })).snapshot;
    for (const added of ['b/2/new.js', 'c/1/g/new.js']) {
      writeFileSync(join(root, added), '');
      const data = decodeSnapshot(snapshot, realpathSync(root), JSON.stringify([32, 1_000_000]))!;
      const reusing = await walk(root, { previous: previousTree(data), clock });
      const listing = await walk(root);
      assert.deepEqual(reusing.files, listing.files, added);
      assert.deepEqual(reusing.dirs, listing.dirs, added);
      assert.ok(reusing.files.includes(added));
      snapshot = (await scan(root, { racyMs: 0, previous: snapshot })).snapshot;
    }
  });

  test('a package name two workspace packages claim resolves the same after a rescan walks the tree otherwise', async (t) => {
    // A walk that lists a directory again orders the tree's package.json files otherwise than a fresh walk;
    // the workspace names are taken in path order, so the first in path order wins either way.
    const root = makeTree(t, {
      'package.json': JSON.stringify({ workspaces: ['packages/*'], scripts: { test: 'npm test --workspaces' } }),
      'packages/a-cfg/package.json': JSON.stringify({ name: '@acme/test-config', main: 'index.js' }),
      'packages/a-cfg/index.js': "module.exports = { testMatch: ['**/*.one.js'] };\n",
      'packages/z-cfg/package.json': JSON.stringify({ name: '@acme/test-config', main: 'index.js' }),
      'packages/z-cfg/index.js': "module.exports = { testMatch: ['**/*.two.js'] };\n",
      'packages/app/package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29' } }),
      'packages/app/jest.config.js': "module.exports = { ...require('@acme/test-config') };\n",
      'packages/app/x.one.js': '', 'packages/app/y.two.js': '',
    });
    const options = { racyMs: 20 };
    await sleep(60);
    const first = await scan(root, options);
    assert.deepEqual(first.tests.map((x) => x.file), ['packages/app/x.one.js']);
    await sleep(60);
    writeFileSync(join(root, 'packages/app/extra.txt'), '');
    await sleep(60);
    const incremental = await scan(root, { ...options, previous: first.snapshot });
    assert.equal(incremental.mode, 'incremental');
    assert.deepEqual(found(incremental), found(await scan(root, { ...options, exclude: () => false })));
    assert.deepEqual(incremental.tests.map((x) => x.file), ['packages/app/x.one.js']);
  });

  test('nothing changed: answered from the snapshot; a damaged or foreign snapshot means a full scan', async (t) => {
    const root = makeTree(t, BASE);
    await sleep(30); // Past the racy window (and the filesystem clock's tick) of the files just written.
    const first = await scan(root, { racyMs: 10 });
    assert.equal(first.mode, 'full');
    const same = await scan(root, { racyMs: 10, previous: first.snapshot });
    assert.equal(same.mode, 'unchanged');
    assert.equal(same.snapshot, null);
    assert.deepEqual(found(same), found(first));
    const damaged = await scan(root, { racyMs: 10, previous: first.snapshot!.subarray(0, 40) });
    assert.equal(damaged.mode, 'full');
    const other = await scan(join(root, 'py'), { racyMs: 10, previous: first.snapshot });
    assert.equal(other.mode, 'full');
    const capped = await scan(root, { racyMs: 10, previous: first.snapshot, maxDepth: 3 });
    assert.equal(capped.mode, 'full', 'other walk limits: the snapshot is not reused');
  });
});

suite('rescans re-run only the rules whose inputs moved', () => {
  test('edits to one family\'s inputs: counted test files are patched, configs and ports re-run the rules', async (t) => {
    const root = makeTree(t, {
      ...BASE,
      // A second pytest command counts with its own deselection: its files are never patched with the other's counter.
      'tools/pyproject.toml': '[project]\nname = "tools"\n',
    });
    // The engine's cache keeps the counting functions of each run of the rules: what a patch needs.
    const options = { racyMs: 20, cache: createScanCache() };
    const aged = (): Promise<unknown> => sleep(60); // Past the racy window of the last edit.
    await aged();
    let previous = (await scan(root, options)).snapshot;
    const step = async (what: string, edit: () => void, patched: boolean): Promise<ScanResult> => {
      edit();
      await aged();
      const incremental = await scan(root, { ...options, previous });
      assert.equal(incremental.mode, 'incremental', what);
      assert.deepEqual(found(incremental), found(await scan(root, options)), what);
      assert.equal(rulesRun(incremental.snapshot, root) === rulesRun(previous, root), patched, `${what}: patched ${patched}`);
      assert.ok(incremental.delta, what);
      previous = incremental.snapshot;
      return incremental;
    };
    const jest = await step('a Jest test file gains a case', () => appendFileSync(join(root, 'src/a.test.js'), "test('a2', () => {});\n"), true);
    assert.deepEqual(jest.delta, { upserts: [{ file: 'src/a.test.js', framework: 'jest', cases: 2 }], removed: [] });
    await step('a test file no command reaches and a pytest file change together', () => {
      writeFileSync(join(root, 'packages/web/src/w.test.ts'), "test('w', () => {}); test('v', () => {}); test('u', () => {});\n");
      writeFileSync(join(root, 'py/tests/test_one.py'), 'def xest_one():\n    pass\n');
    }, true);
    const zero = await step('a test file loses every case (the row stays)', () => writeFileSync(join(root, 'src/a.test.js'), '// none\n'), true);
    assert.deepEqual(zero.tests.find((x) => x.file === 'src/a.test.js'), { file: 'src/a.test.js', framework: 'jest', cases: 0 });
    // Go drops a file whose build constraint excludes it: its counts decide rows, so the rules run.
    await step('a Go test file excluded by a build tag', () => writeFileSync(join(root, 'svc/x_test.go'), '//go:build windows\n\npackage svc\n\nfunc TestX(t *testing.T) {}\n'), false);
    await step('the Go file back', () => writeFileSync(join(root, 'svc/x_test.go'), 'package svc\n\nfunc TestX(t *testing.T) {}\nfunc TestY(t *testing.T) {}\n'), false);
    const ports = await step('a port changes (an input of the ports family only)', () => writeFileSync(join(root, 'docker-compose.yml'), 'services:\n  web:\n    ports:\n      - "9090:80"\n'), false);
    assert.ok(ports.ports.some((p) => p.port === 9090), JSON.stringify(ports.ports));
    await step('the Jest config changes what is a test', () => writeFileSync(join(root, 'jest.config.js'), "module.exports = { testMatch: ['**/*.test.js'] };\n"), false);
    await step('then a Jest test file again', () => appendFileSync(join(root, 'src/a.test.js'), "it('b', () => {});\n"), true);
    await step('the pytest config', () => writeFileSync(join(root, 'py/pytest.ini'), '[pytest]\ntestpaths = tests\naddopts = --deselect tests/unit/test_two.py::test_two\n'), false);
    const deselected = await step('a test file under a deselection', () => appendFileSync(join(root, 'py/tests/unit/test_two.py'), 'def test_four():\n    pass\n'), true);
    assert.equal(deselected.tests.find((x) => x.file === 'py/tests/unit/test_two.py')?.cases, 2);
    // A file that did not move but whose stamp was taken racy is read again: still a patch, still exact.
    await step('a touch without a change', () => { const now = new Date(); utimesSync(join(root, 'src/a.test.js'), now, now); }, true);
  });

  test('a rescan whose rules run the cache does not remember runs them (no patch from another run)', async (t) => {
    const root = makeTree(t, BASE);
    const cache = createScanCache();
    await sleep(60);
    const first = await scan(root, { racyMs: 20, cache });
    // Five more runs of the rules over this root push the first one out of what the cache keeps.
    for (let i = 0; i < 5; i++) await scan(root, { racyMs: 20, cache });
    appendFileSync(join(root, 'src/a.test.js'), "test('a2', () => {});\n");
    await sleep(60);
    const again = await scan(root, { racyMs: 20, previous: first.snapshot, cache });
    assert.notEqual(rulesRun(again.snapshot, root), rulesRun(first.snapshot, root));
    assert.deepEqual(found(again), found(await scan(root, { racyMs: 20 })));
  });
});

suite('incremental rescans over HTTP', () => {
  test('a rescan starts from the stored snapshot and finds the same; ?full=1 and scan/all?full=1 ignore it', async (t) => {
    const root = makeTree(t, BASE);
    const server = await serve(t);
    const { body: project } = await call(`${server.url}/api/projects`, 'POST', { name: 'p', path: root });
    const first = await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
    assert.equal(first.status, 200);
    await server.settled(); // the snapshot is kept just after the answer
    const kept = server.store.getSnapshot(project.id);
    assert.ok(kept && kept.data.byteLength > 0);
    writeFileSync(join(root, 'src/new.test.js'), "test('n', () => {});\n");
    rmSync(join(root, 'src/__tests__/b.js'));
    const again = await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
    const files = again.body.tests.map((x: { file_path: string }) => x.file_path);
    assert.ok(files.includes('src/new.test.js') && !files.includes('src/__tests__/b.js'), files.join());
    assert.deepEqual(again.body.tests.map((x: { file_path: string }) => x.file_path), server.store.listTests(project.id).map((x) => x.file_path));
    // Test ids stay while their file is still found, whichever way the scan went.
    const idOf = (body: { tests: Array<{ id: number; file_path: string }> }, file: string): number | undefined => body.tests.find((x) => x.file_path === file)?.id;
    assert.equal(idOf(again.body, 'src/a.test.js'), idOf(first.body, 'src/a.test.js'));
    const full = await call(`${server.url}/api/projects/${project.id}/scan?full=1`, 'POST');
    assert.deepEqual(full.body.tests, again.body.tests);
    const all = await call(`${server.url}/api/projects/scan/all?full=1`, 'POST');
    assert.equal(all.status, 200);
    assert.deepEqual(all.body[0].tests, again.body.tests);
    // Past the racy window, a test file edited alone: the scan process that ran the rules patches its count.
    // (First a rescan past the racy window of the tree just written, so the configs' stamps are taken in.)
    await sleep(2100);
    await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
    await server.settled();
    const before = server.store.getSnapshot(project.id)!.data;
    appendFileSync(join(root, 'src/a.test.js'), "test('a2', () => {});\n");
    const patched = await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
    assert.equal(patched.body.tests.find((x: { file_path: string }) => x.file_path === 'src/a.test.js')?.cases, 2);
    await server.settled();
    const after = server.store.getSnapshot(project.id)!.data;
    assert.ok(rulesRun(after, root) !== undefined && rulesRun(after, root) === rulesRun(before, root), 'counts patched, rules not run');
    const check = await call(`${server.url}/api/projects/${project.id}/scan?full=1`, 'POST');
    assert.deepEqual(check.body.tests, patched.body.tests);
    // Deleting the project drops its snapshot with it.
    await call(`${server.url}/api/projects/${project.id}`, 'DELETE');
    assert.equal(server.store.getSnapshot(project.id), undefined);
  });

  test('a snapshot kept just after its answer is where the next scan starts; close() saves it', async (t) => {
    const root = makeTree(t, BASE);
    const db = join(makeTree(t), 'projdex.db');
    const server = await serve(t, { db });
    const { body: project } = await call(`${server.url}/api/projects`, 'POST', { name: 'p', path: root });
    const modes: unknown[] = [];
    server.events.subscribe((event) => { if (event.type === 'scan.finished') modes.push(event.data.mode); });
    // Two scans back to back: the second starts from the first one's snapshot, kept after the first answered.
    await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
    assert.equal((await call(`${server.url}/api/projects/${project.id}/scan`, 'POST')).status, 200);
    assert.equal(modes.length, 2);
    assert.equal(modes[0], 'full');
    assert.notEqual(modes[1], 'full', 'the second scan started from the first one\'s snapshot');
    // Closed right after an answer, the server still keeps that scan's snapshot in the database.
    await call(`${server.url}/api/projects/${project.id}/scan?full=1`, 'POST');
    await server.close();
    const store = openStore(db);
    t.after(() => store.close());
    const kept = store.getSnapshot(project.id);
    assert.ok(kept && kept.data.byteLength > 0, 'the last snapshot was kept before the database closed');
  });
});
