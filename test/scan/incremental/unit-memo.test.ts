// Rule units (one runner rule over one package) answered from their records on a rescan over the kept walk:
// each step's answer must equal a full scan's, and only the units whose inputs moved may run again.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite, test, type TestContext } from 'node:test';
import { scan, type ScanResult } from '../../../src/scan/index.ts';
import { createScanCache, type ScanCache } from '../../../src/scan/incremental/cache.ts';
import { makeTree } from '../../helpers/index.ts';

const pj = (o: unknown): string => JSON.stringify(o);
const JEST = pj({ scripts: { test: 'jest' }, devDependencies: { jest: '^29' } });

// Shapes seen in real monorepos: a shared config package imported by name (not installed: a fresh clone),
// a config that extends a local base file, one that reads the environment, and a Vitest package.
const TREE: Record<string, string> = {
  'package.json': pj({ workspaces: ['packages/*'], scripts: { test: 'npm test --workspaces' } }),
  'packages/test-config/package.json': pj({ name: '@acme/test-config', main: 'index.js' }),
  'packages/test-config/index.js': "module.exports = { testMatch: ['**/*.check.js'] };\n",
  'packages/alt/package.json': pj({ name: '@acme/alt', main: 'index.js' }),
  'packages/alt/index.js': "module.exports = { testMatch: ['**/*.check.js'] };\n",
  'packages/a/package.json': JEST,
  'packages/a/jest.config.js': "const base = require('@acme/test-config');\nmodule.exports = { ...base };\n",
  'packages/a/x.check.js': "test('x', () => {});\n", 'packages/a/y.test.js': "test('y', () => {});\n",
  'packages/e/package.json': JEST,
  'packages/e/jest.config.js': "module.exports = { ...require('@acme/test-config') };\n",
  'packages/e/z.check.js': "test('z', () => {});\n", 'packages/e/w.test.js': "test('w', () => {});\n",
  'packages/b/package.json': JEST,
  'packages/b/jest.config.js': "module.exports = { testMatch: [process.env.MATCH || '**/*.test.js'] };\n",
  'packages/b/b.test.js': "test('b', () => {});\n", 'packages/b/b.spec.js': "test('s', () => {});\n",
  'packages/c/package.json': pj({ scripts: { test: 'vitest run' }, devDependencies: { vitest: '^3' } }),
  'packages/c/vitest.config.ts': "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['src/**/*.spec.ts'] } });\n",
  'packages/c/src/c.spec.ts': "test('c', () => {});\n", 'packages/c/src/c.test.ts': "test('t', () => {});\n",
  'packages/f/package.json': JEST,
  // The shared config it imports is a link out of the project (never read, noted), then the preset.
  'packages/f/jest.config.js': "const shared = require('@acme/outside-config');\nmodule.exports = { ...shared, preset: 'acme-preset' };\n",
  'packages/f/node_modules/acme-preset/package.json': pj({ name: 'acme-preset' }),
  'packages/f/node_modules/acme-preset/jest-preset.json': pj({ testMatch: ['**/*.check.js'] }),
  'packages/f/q.check.js': "test('q', () => {});\n", 'packages/f/r.test.js': "test('r', () => {});\n",
  'packages/d/package.json': JEST,
  'packages/d/jest.config.js': "const base = require('./jest.base');\nmodule.exports = { ...base, testPathIgnorePatterns: ['/legacy/'] };\n",
  'packages/d/jest.base.js': "module.exports = { testMatch: ['**/*.test.js'] };\n",
  'packages/d/d.test.js': "test('d', () => {});\n", 'packages/d/legacy/old.test.js': "test('o', () => {});\n",
  'packages/d/d.spec.js': "test('s', () => {});\n",
};

/**
 * The port finders other than the package.json scripts' (which is a unit per file): a unit each, seeing the
 * whole tree (src/ports/index.ts), so each runs again on another walk.
 */
const FINDERS = 16;

/** What a scan found, in an order-free form (notes and runs as sorted lists). */
function found({ tests, ports, framework, notes, runs, truncated }: ScanResult): unknown {
  return { tests, ports, framework, notes: [...notes].sort(), runs: runs.map((r) => JSON.stringify(r)).sort(), truncated };
}

/**
 * `edit()` with every directory's stamp past the racy window (so every directory is as it was), then a rescan
 * from `previous`, with how many units ran and how many were answered from their records.
 */
async function rescanAfter(edit: () => void, root: string, options: Options, previous: Uint8Array | null) {
  await sleep(60);
  edit();
  await sleep(60);
  const before = { ...options.cache.units!.counts };
  // Every file a rule got the text of (the scan's probe), in order.
  const reads: string[] = [];
  const probe = { walked: () => {}, reading: (file: string) => { reads.push(file); } };
  const incremental = Object.assign(await scan(root, { ...options, previous, probe }), { reads });
  const after = options.cache.units!.counts;
  return { incremental, ran: after.ran - before.ran, replayed: after.replayed - before.replayed };
}

/**
 * `files` as a tree, scanned once in a process that keeps decoded snapshots (as a scan process does, so units
 * record): the root and that first answer.
 */
async function scannedOnce(t: TestContext, files: Record<string, string>) {
  const root = makeTree(t, files);
  const options = keeping();
  await sleep(60);
  return { root, first: await scan(root, options), options };
}

interface Options { readonly racyMs: number; readonly cache: ScanCache }

/** Options of scans in an engine that keeps decoded snapshots, as a scan process's does (so units record). */
const keeping = (): Options => ({ racyMs: 20, cache: createScanCache({ snapshotBytes: 8 * 1024 * 1024 }) });

suite('rule units over a kept walk', () => {
  test('an edit in place runs again only the units that read what moved, and the answer equals a full scan', async (t) => {
    const root = makeTree(t, TREE);
    const outside = makeTree(t, { 'package.json': pj({ name: '@acme/outside-config', main: 'index.js' }), 'index.js': 'module.exports = {};\n' });
    mkdirSync(join(root, 'packages/f/node_modules/@acme'), { recursive: true });
    symlinkSync(outside, join(root, 'packages/f/node_modules/@acme/outside-config'));
    const options = keeping();
    await sleep(60);
    const first = await scan(root, options);
    assert.ok(first.notes.some((n) => n.includes('process.env.MATCH')), first.notes.join('\n'));
    assert.deepEqual(first.tests.map((x) => x.file), [
      'packages/a/x.check.js', 'packages/b/b.test.js', 'packages/c/src/c.spec.ts', 'packages/d/d.test.js', 'packages/e/z.check.js',
      'packages/f/q.check.js',
    ]);
    let previous = first.snapshot;
    // The answer once packages/c has its second spec file (the steps after the first walk listed again).
    const WITH_NEW_SPEC = ['packages/a/x.check.js', 'packages/b/b.spec.js', 'packages/c/src/c.spec.ts',
      'packages/c/src/new.spec.ts', 'packages/d/d.spec.js', 'packages/e/z.check.js', 'packages/f/r.test.js'];
    // Each edit keeps every directory as it was; `reran`: the units that must run again; `tests`: the answer.
    // Each package.json's scripts are a port unit of their own, and the entry files scripts and `main`s name
    // (the shared config's index.js) another: an edit of one of those runs that unit again (+1 below), an edit
    // of a Jest config or a preset does not.
    const steps: Array<{ what: string; edit: () => void; reran: number; replayed?: number; tests: string[] }> = [
      {
        what: 'one package config', reran: 1,
        edit: () => writeFileSync(join(root, 'packages/b/jest.config.js'), "module.exports = { testMatch: ['**/*.spec.js'] };\n"),
        tests: ['packages/a/x.check.js', 'packages/b/b.spec.js', 'packages/c/src/c.spec.ts', 'packages/d/d.test.js', 'packages/e/z.check.js', 'packages/f/q.check.js'],
      },
      {
        what: 'the local base file one config extends', reran: 1,
        edit: () => writeFileSync(join(root, 'packages/d/jest.base.js'), "module.exports = { testMatch: ['**/*.spec.js'] };\n"),
        tests: ['packages/a/x.check.js', 'packages/b/b.spec.js', 'packages/c/src/c.spec.ts', 'packages/d/d.spec.js', 'packages/e/z.check.js', 'packages/f/q.check.js'],
      },
      {
        what: 'the shared config package two configs import', reran: 2 + 1,
        edit: () => writeFileSync(join(root, 'packages/test-config/index.js'), "module.exports = { testMatch: ['**/*.check.js', '**/*.test.js'] };\n"),
        tests: ['packages/a/x.check.js', 'packages/a/y.test.js', 'packages/b/b.spec.js', 'packages/c/src/c.spec.ts', 'packages/d/d.spec.js',
          'packages/e/w.test.js', 'packages/e/z.check.js', 'packages/f/q.check.js'],
      },
      {
        // f's import of the linked-out package falls back to the workspace names too: it runs again as well.
        what: 'the name of that package, so neither import resolves (Jest\'s defaults)', reran: 3 + 1,
        edit: () => writeFileSync(join(root, 'packages/test-config/package.json'), pj({ name: '@acme/renamed', main: 'index.js' })),
        tests: ['packages/a/y.test.js', 'packages/b/b.spec.js', 'packages/c/src/c.spec.ts', 'packages/d/d.spec.js', 'packages/e/w.test.js', 'packages/f/q.check.js'],
      },
      {
        // Another package takes the name. Only the first config to import it reads the package.json files
        // (it builds the names cache); the second is answered from the cache and depends on every
        // package.json all the same (packages-workspace.ts calls `dependOn`), or it would be replayed stale.
        what: 'another package taking that name', reran: 3 + 1,
        edit: () => writeFileSync(join(root, 'packages/alt/package.json'), pj({ name: '@acme/test-config', main: 'index.js' })),
        tests: ['packages/a/x.check.js', 'packages/b/b.spec.js', 'packages/c/src/c.spec.ts', 'packages/d/d.spec.js', 'packages/e/z.check.js', 'packages/f/q.check.js'],
      },
      {
        // Under node_modules, not walked: the replay asks the package reader again and compares.
        what: 'an installed preset edited in place', reran: 1,
        edit: () => writeFileSync(join(root, 'packages/f/node_modules/acme-preset/jest-preset.json'), pj({ testMatch: ['**/*.test.js'] })),
        tests: ['packages/a/x.check.js', 'packages/b/b.spec.js', 'packages/c/src/c.spec.ts', 'packages/d/d.spec.js', 'packages/e/z.check.js',
          'packages/f/r.test.js'],
      },
      {
        what: 'a test file only (its count patched, no rule runs)', reran: 0,
        edit: () => writeFileSync(join(root, 'packages/c/src/c.spec.ts'), "test('c', () => {});\ntest('c2', () => {});\n"),
        tests: ['packages/a/x.check.js', 'packages/b/b.spec.js', 'packages/c/src/c.spec.ts', 'packages/d/d.spec.js', 'packages/e/z.check.js',
          'packages/f/r.test.js'],
      },
      {
        // The package set changes over the same walk: each package's share of the files is its own, kept.
        // The configs that resolved a name through every package.json run again (the root's moved); f is
        // no package now, so two.
        what: 'the workspaces narrowed, so packages/f is no package', reran: 2 + 1,
        edit: () => writeFileSync(join(root, 'package.json'), pj({
          workspaces: ['packages/a', 'packages/alt', 'packages/b', 'packages/c', 'packages/d', 'packages/e', 'packages/test-config'],
          scripts: { test: 'npm test --workspaces' },
        })),
        tests: ['packages/a/x.check.js', 'packages/b/b.spec.js', 'packages/c/src/c.spec.ts', 'packages/d/d.spec.js', 'packages/e/z.check.js'],
      },
      {
        what: 'and widened again (all three resolved names through the root package.json)', reran: 3 + 1,
        edit: () => writeFileSync(join(root, 'package.json'), TREE['package.json']!),
        tests: ['packages/a/x.check.js', 'packages/b/b.spec.js', 'packages/c/src/c.spec.ts', 'packages/d/d.spec.js', 'packages/e/z.check.js',
          'packages/f/r.test.js'],
      },
      // Files added and removed: a directory is listed again, so this is another walk. A JS unit is answered
      // from its record while what it asked of the tree holds (unit-tree.ts): here all but the package whose
      // files moved; the non-JS rules and the port finders that see the whole tree run (10 + FINDERS). The 9
      // package.json files' port units and the entry files' are answered too (+ 10).
      {
        what: 'a spec file added to packages/c (another walk)', reran: 1 + 10 + FINDERS, replayed: 5 + 10,
        edit: () => writeFileSync(join(root, 'packages/c/src/new.spec.ts'), "test('n', () => {});\n"),
        tests: WITH_NEW_SPEC,
      },
      {
        what: 'a file removed from packages/b', reran: 1 + 10 + FINDERS, replayed: 5 + 10,
        edit: () => rmSync(join(root, 'packages/b/b.test.js')),
        tests: WITH_NEW_SPEC,
      },
      {
        // A new package.json: the units that resolved names through every package.json (a, e, f) run again,
        // and so do the new package's own unit and its package.json's port unit.
        what: 'a new package', reran: 4 + 10 + FINDERS + 1, replayed: 3 + 10,
        edit: () => {
          mkdirSync(join(root, 'packages/g'));
          writeFileSync(join(root, 'packages/g/package.json'), JEST);
          writeFileSync(join(root, 'packages/g/g.test.js'), "test('g', () => {});\n");
        },
        tests: [...WITH_NEW_SPEC, 'packages/g/g.test.js'],
      },
      {
        // A config file appears where a unit looked for one (`has`): that unit runs again.
        what: 'a jest.config.js added to packages/g', reran: 1 + 10 + FINDERS, replayed: 6 + 11,
        edit: () => writeFileSync(join(root, 'packages/g/jest.config.js'), "module.exports = { testMatch: ['**/*.none.js'] };\n"),
        tests: WITH_NEW_SPEC,
      },
      {
        // Outside the units' own packages: the file the shared config resolved to is gone (a `has` answer that
        // moved), so the two configs importing it run again and fall back to Jest's defaults; the entry files'
        // unit, which looked for it as alt's `main`, too.
        what: 'the shared config file removed', reran: 2 + 10 + FINDERS + 1, replayed: 5 + 10,
        edit: () => rmSync(join(root, 'packages/alt/index.js')),
        tests: WITH_NEW_SPEC.map((file) => file.replace('a/x.check', 'a/y.test').replace('e/z.check', 'e/w.test')),
      },
      {
        // And back: a path the configs looked for and did not find (no read stamp stands for it) is there now.
        what: 'the shared config file back', reran: 2 + 10 + FINDERS + 1, replayed: 5 + 10,
        edit: () => writeFileSync(join(root, 'packages/alt/index.js'), "module.exports = { testMatch: ['**/*.check.js'] };\n"),
        tests: WITH_NEW_SPEC,
      },
    ];
    for (const { what, edit, reran, replayed: fromRecords, tests } of steps) {
      const { incremental, ran, replayed } = await rescanAfter(edit, root, options, previous);
      assert.equal(incremental.mode, 'incremental', what);
      assert.deepEqual(incremental.tests.map((x) => x.file), tests, what);
      assert.equal(ran, reran, `${what}: units run again`);
      if (fromRecords !== undefined) assert.equal(replayed, fromRecords, `${what}: units answered from their records`);
      else if (reran > 0) assert.ok(replayed >= 6 - reran, `${what}: units answered from their records`);
      // A full scan that keeps no snapshot (an `exclude` function), so it does not replace the kept one.
      assert.deepEqual(found(incremental), found(await scan(root, { ...options, exclude: () => false })), what);
      previous = incremental.snapshot;
      // What a replayed unit gives its run, checked outright (a full scan that lost it would still agree).
      const runOf = (dir: string) => incremental.runs.find((r) => r.package === dir);
      if (!tests.some((file) => file.startsWith('packages/f/'))) continue; // f is no package in this step
      assert.equal(runOf('packages/f')?.config, 'packages/f/jest.config.js', what);
      assert.ok(runOf('packages/f')?.notes.includes('packages/f/jest.config.js: preset acme-preset read from '
        + 'packages/f/node_modules/acme-preset/jest-preset.json'), `${what}: ${JSON.stringify(runOf('packages/f'))}`);
      // Given by the package reader on the first read only: a check that read it before the unit ran again
      // (the preset edited) holds it for the run (unit-memo.ts `askAgain`).
      assert.ok(runOf('packages/f')?.notes.some((n) => n.includes('outside-config') && n.includes('leads outside the project')),
        `${what}: ${JSON.stringify(runOf('packages/f'))}`);
    }
    const last = await scan(root, { ...options, exclude: () => false });
    assert.equal(last.tests.find((x) => x.file === 'packages/c/src/c.spec.ts')?.cases, 2);
  });

  test('a non-JS rule answered from its record counts its test files again and keeps the rows those counts keep', async (t) => {
    const root = makeTree(t, {
      'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
      'tests/test_a.py': 'def test_a():\n    pass\n',
      'tests/test_b.py': 'def test_b():\n    pass\n\ndef test_c():\n    pass\n',
      'tests/conftest.py': 'import pytest\n',
      // pytest's default doctest glob takes it, but it holds no example yet: no row.
      'tests/test_notes.txt': 'Notes on the API; examples to come.\n',
      'svc/go.mod': 'module example.com/svc\n\ngo 1.22\n',
      'svc/x_test.go': 'package svc\n\nfunc TestX(t *testing.T) {}\n',
    });
    const options = keeping();
    await sleep(60);
    let previous = (await scan(root, options)).snapshot;
    const goTest = (constraint: string, names: string[]): string =>
      `${constraint}package svc\n\n${names.map((n) => `func Test${n}(t *testing.T) {}\n`).join('')}`;
    const steps: Array<{ what: string; edit: () => void; reran: number; cases: Record<string, number> }> = [
      {
        what: 'a Go test and a pytest file', reran: 0,
        edit: () => {
          writeFileSync(join(root, 'svc/x_test.go'), goTest('', ['X', 'Y']));
          writeFileSync(join(root, 'tests/test_a.py'), 'def test_a():\n    pass\n\ndef test_a2():\n    pass\n');
        },
        cases: { 'svc/x_test.go': 2, 'tests/test_a.py': 2, 'tests/test_b.py': 2 },
      },
      {
        // Rows kept by count (`keep`): a doctest file with an example is a test, a Go file built for another
        // platform is not. Both rules are still answered from their records.
        what: 'a doctest file gains an example, the Go test is built for Windows only', reran: 0,
        edit: () => {
          writeFileSync(join(root, 'tests/test_notes.txt'), 'Notes on the API.\n\n>>> 1 + 1\n2\n');
          writeFileSync(join(root, 'svc/x_test.go'), goTest('//go:build windows\n\n', ['X', 'Y']));
        },
        cases: { 'tests/test_a.py': 2, 'tests/test_b.py': 2, 'tests/test_notes.txt': 1 },
      },
      {
        what: 'the Go test back on every platform, the doctest file without its example', reran: 0,
        edit: () => {
          writeFileSync(join(root, 'tests/test_notes.txt'), 'Notes on the API.\n');
          writeFileSync(join(root, 'svc/x_test.go'), goTest('', ['X']));
        },
        cases: { 'svc/x_test.go': 1, 'tests/test_a.py': 2, 'tests/test_b.py': 2 },
      },
      {
        what: 'the pytest config', reran: 1,
        edit: () => writeFileSync(join(root, 'pyproject.toml'), '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npython_files = ["test_b.py"]\n'),
        cases: { 'svc/x_test.go': 1, 'tests/test_b.py': 2 },
      },
      {
        what: 'a pytest file losing a case', reran: 0,
        edit: () => writeFileSync(join(root, 'tests/test_b.py'), 'def test_b():\n    pass\n'),
        cases: { 'svc/x_test.go': 1, 'tests/test_b.py': 1 },
      },
    ];
    for (const { what, edit, reran, cases } of steps) {
      const { incremental, ran } = await rescanAfter(edit, root, options, previous);
      assert.equal(incremental.mode, 'incremental', what);
      assert.deepEqual(Object.fromEntries(incremental.tests.map((x) => [x.file, x.cases])), cases, what);
      assert.equal(ran, reran, `${what}: units run again`);
      assert.deepEqual(found(incremental), found(await scan(root, { ...options, exclude: () => false })), what);
      previous = incremental.snapshot;
    }
  });

  test('JS counts over the kept walk: edited test files are counted again beside a rule that runs, the others kept', async (t) => {
    const cases = (n: number): string => Array.from({ length: n }, (_, i) => `test('t${i}', () => {});\n`).join('');
    const { root, first, options } = await scannedOnce(t, {
      'package.json': pj({ workspaces: ['packages/*'] }),
      'packages/a/package.json': JEST, 'packages/a/jest.config.js': "module.exports = { testMatch: ['**/*.test.js'] };\n",
      'packages/a/b.test.js': cases(1), 'packages/a/a.test.js': cases(2), 'packages/a/z/c.test.js': cases(3),
      'packages/a/a.spec.js': cases(4),
      'packages/b/package.json': JEST, 'packages/b/y.test.js': cases(5), 'packages/b/x.test.js': cases(6),
    });
    let previous = first.snapshot;
    const steps: Array<{ what: string; edit: () => void; reran: number; cases: Record<string, number> }> = [
      {
        // The rules run (a's config moved) over the walk kept as it was: b's rows come from kept counts, the
        // edited file of each package is counted again.
        what: 'a config rewritten as it was, and a test file of each package', reran: 1,
        edit: () => {
          writeFileSync(join(root, 'packages/a/jest.config.js'), "module.exports = { testMatch: ['**/*.test.js'] };\n");
          writeFileSync(join(root, 'packages/a/z/c.test.js'), cases(7));
          writeFileSync(join(root, 'packages/b/x.test.js'), cases(8));
        },
        cases: { 'packages/a/a.test.js': 2, 'packages/a/b.test.js': 1, 'packages/a/z/c.test.js': 7, 'packages/b/x.test.js': 8, 'packages/b/y.test.js': 5 },
      },
      {
        // Only a counted file moved: its count is patched in without running the rules.
        what: 'a test file alone', reran: 0,
        edit: () => writeFileSync(join(root, 'packages/a/b.test.js'), cases(9)),
        cases: { 'packages/a/a.test.js': 2, 'packages/a/b.test.js': 9, 'packages/a/z/c.test.js': 7, 'packages/b/x.test.js': 8, 'packages/b/y.test.js': 5 },
      },
      {
        // The rules run again after that patch: the patched count is kept, not the one before it.
        what: 'b given a config', reran: 1 + 1,
        edit: () => writeFileSync(join(root, 'packages/b/package.json'), pj({ scripts: { test: 'jest' }, devDependencies: { jest: '^29' }, private: true })),
        cases: { 'packages/a/a.test.js': 2, 'packages/a/b.test.js': 9, 'packages/a/z/c.test.js': 7, 'packages/b/x.test.js': 8, 'packages/b/y.test.js': 5 },
      },
      {
        // a claims other files of the same walk: listed in path order, each with its count.
        what: 'a config matching spec files too', reran: 1,
        edit: () => writeFileSync(join(root, 'packages/a/jest.config.js'), "module.exports = { testMatch: ['**/*.spec.js', '**/*.test.js'] };\n"),
        cases: { 'packages/a/a.spec.js': 4, 'packages/a/a.test.js': 2, 'packages/a/b.test.js': 9, 'packages/a/z/c.test.js': 7,
          'packages/b/x.test.js': 8, 'packages/b/y.test.js': 5 },
      },
    ];
    for (const { what, edit, reran, cases: expected } of steps) {
      const { incremental, ran } = await rescanAfter(edit, root, options, previous);
      assert.equal(incremental.mode, 'incremental', what);
      assert.deepEqual(Object.fromEntries(incremental.tests.map((x) => [x.file, x.cases])), expected, what);
      assert.deepEqual(incremental.tests.map((x) => x.file), Object.keys(expected), `${what}: in path order`);
      if (ran > 0 && what !== 'b given a config') {
        // The rules ran, over the walk kept as it was: the members' manifests, none of which moved, are taken
        // as the last scan read them (the root's is read by other rules too).
        const manifests = incremental.reads.filter((file) => file.startsWith('packages/') && file.endsWith('/package.json'));
        assert.deepEqual(manifests, [], `${what}: package.json files read`);
      }
      assert.equal(ran, reran, `${what}: units run again`);
      assert.deepEqual(found(incremental), found(await scan(root, { ...options, exclude: () => false })), what);
      previous = incremental.snapshot;
    }
  });

  test('claims over the kept walk: a file two runners list stays the first one\'s, and the note follows each edit', async (t) => {
    const VITEST = (include: string): string =>
      `import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['${include}'] } });\n`;
    const { root, first, options } = await scannedOnce(t, {
      'package.json': pj({ workspaces: ['packages/*'], scripts: { test: 'npm test --workspaces' } }),
      'packages/a/package.json': pj({ scripts: { test: 'jest && vitest run' }, devDependencies: { jest: '^29', vitest: '^3' } }),
      'packages/a/jest.config.js': "module.exports = { testMatch: ['**/*.test.js'] };\n",
      'packages/a/vitest.config.ts': VITEST('**/*.test.js'),
      'packages/a/a.test.js': "test('a', () => {});\n", 'packages/a/b.test.js': "test('b', () => {});\n",
      'packages/a/c.spec.js': "test('c', () => {});\n",
      'packages/b/package.json': JEST, 'packages/b/d.test.js': "test('d', () => {});\n",
    });
    const owners = (r: ScanResult): Record<string, string> => Object.fromEntries(r.tests.map((x) => [x.file, x.framework]));
    const shared = (r: ScanResult): string[] => r.notes.filter((n) => n.includes(' also runs '));
    assert.deepEqual(owners(first), { 'packages/a/a.test.js': 'jest', 'packages/a/b.test.js': 'jest', 'packages/b/d.test.js': 'jest' });
    assert.equal(shared(first).length, 1);
    let previous = first.snapshot;
    const steps: Array<{ what: string; edit: () => void; owners: Record<string, string>; shared: number }> = [
      {
        // Only a test file moved, beside a config rewritten as it was: every claim as it was, its note again.
        what: 'every unit answered from its record', shared: 1,
        edit: () => {
          writeFileSync(join(root, 'packages/b/package.json'), JEST);
          writeFileSync(join(root, 'packages/a/a.test.js'), "test('a', () => {});\ntest('a2', () => {});\n");
        },
        owners: { 'packages/a/a.test.js': 'jest', 'packages/a/b.test.js': 'jest', 'packages/b/d.test.js': 'jest' },
      },
      {
        // Vitest (the second runner) lists spec files too: one more row, Vitest's, and the shared note stays.
        what: 'the second runner claims more', shared: 1,
        edit: () => writeFileSync(join(root, 'packages/a/vitest.config.ts'), VITEST('**/*.{test,spec}.js')),
        owners: { 'packages/a/a.test.js': 'jest', 'packages/a/b.test.js': 'jest', 'packages/a/c.spec.js': 'vitest',
          'packages/b/d.test.js': 'jest' },
      },
      {
        // Jest (the first) lists one file only: the other is Vitest's now, and the note names one file.
        what: 'the first runner claims less', shared: 1,
        edit: () => writeFileSync(join(root, 'packages/a/jest.config.js'), "module.exports = { testMatch: ['**/a.test.js'] };\n"),
        owners: { 'packages/a/a.test.js': 'jest', 'packages/a/b.test.js': 'vitest', 'packages/a/c.spec.js': 'vitest',
          'packages/b/d.test.js': 'jest' },
      },
      {
        // A later package's runner claims nothing: the claims before it are as they were.
        what: 'a later package lists nothing', shared: 1,
        edit: () => writeFileSync(join(root, 'packages/b/package.json'), pj({ scripts: { test: 'jest none/' }, devDependencies: { jest: '^29' } })),
        owners: { 'packages/a/a.test.js': 'jest', 'packages/a/b.test.js': 'vitest', 'packages/a/c.spec.js': 'vitest' },
      },
    ];
    for (const { what, edit, owners: expected, shared: notes } of steps) {
      const { incremental } = await rescanAfter(edit, root, options, previous);
      assert.equal(incremental.mode, 'incremental', what);
      assert.deepEqual(owners(incremental), expected, what);
      assert.equal(shared(incremental).length, notes, what);
      const full = await scan(root, { ...options, exclude: () => false });
      assert.deepEqual(found(incremental), found(full), what);
      assert.deepEqual(incremental.notes, full.notes, `${what}: notes in order`);
      previous = incremental.snapshot;
    }
  });

  test('each port finder is a unit, and each package.json\'s scripts: an edit runs again only what read it', async (t) => {
    const { root, first, options } = await scannedOnce(t, {
      'package.json': pj({ scripts: { test: 'jest', dev: 'vite --port 5174', start: 'node server.js' } }),
      'jest.config.js': "module.exports = { testMatch: ['**/*.test.js'] };\n",
      'server.js': "require('http').createServer().listen(process.env.PORT || 8080);\n",
      // Read by the Procfile's finder and, through `npm start`, the root package.json's scripts.
      'Procfile': 'web: npm start\n',
      '.env': 'PORT=3000\n',
      'Dockerfile': 'FROM node:22\nEXPOSE 9000\n',
      // Apps outside any workspace: only the scripts' finder reads their package.json files.
      'apps/web/package.json': pj({ scripts: { dev: 'next dev -p 3001', start: 'next start --port $WEB_PORT' } }),
      'apps/api/package.json': pj({ scripts: { start: 'node main.js' } }),
      'apps/api/main.js': "const app = require('express')();\napp.listen(7000);\n",
      'src/a.test.js': "test('a', () => {});\n",
      'src/b.spec.js': "test('b', () => {});\n",
    });
    const ports = (result: ScanResult): string[] => [...new Set(result.ports.map((p) => `${p.port} ${p.config_source}`))];
    const PORTS = ['3000 .env', '3001 apps/web/package.json', '5174 package.json', '7000 apps/api/main.js', '8080 server.js', '9000 Dockerfile'];
    assert.deepEqual(ports(first), PORTS);
    assert.ok(first.notes.some((n) => n.includes('$WEB_PORT')), first.notes.join('\n'));
    let previous = first.snapshot;
    const swap = (file: string, from: string, to: string) => () => {
      writeFileSync(join(root, file), readFileSync(join(root, file), 'utf8').replace(from, to));
    };
    // `reran`: the units that must run again; `moves`: the port each edit of a file one finder reads must move
    // (a record that missed that read would give the old one back).
    const steps: Array<{ what: string; edit: () => void; reran: number; replayed?: number; moves?: [string, string] }> = [
      {
        what: 'a file only Jest\'s rule reads', reran: 1,
        edit: swap('jest.config.js', '*.test.js', '*.spec.js'),
      },
      {
        what: 'the .env file: its finder alone', reran: 1,
        edit: swap('.env', '3000', '4000'), moves: ['3000 .env', '4000 .env'],
      },
      {
        what: 'one app\'s package.json: its own scripts\' unit alone', reran: 1,
        edit: swap('apps/web/package.json', '3001', '3002'),
        moves: ['3001 apps/web/package.json', '3002 apps/web/package.json'],
      },
      {
        what: 'an entry file a script runs: the entry files\' unit alone', reran: 1,
        edit: swap('apps/api/main.js', '7000', '7001'), moves: ['7000 apps/api/main.js', '7001 apps/api/main.js'],
      },
      {
        // Jest's unit (its key holds the manifest), the root's scripts and the Procfile's finder, which reads it.
        what: 'the root package.json, read by three units', reran: 3,
        edit: swap('package.json', '5174', '5175'), moves: ['5174 package.json', '5175 package.json'],
      },
      {
        what: 'the Dockerfile: its finder alone', reran: 1,
        edit: swap('Dockerfile', '9000', '9001'), moves: ['9000 Dockerfile', '9001 Dockerfile'],
      },
      {
        // Another walk: Jest's unit (its package's files moved), the non-JS rules and the finders that see the
        // whole tree run; the package.json files' units and the entry files' are answered from their records.
        what: 'a test file added (another walk)', reran: 1 + 10 + FINDERS, replayed: 3 + 1,
        edit: () => writeFileSync(join(root, 'src/c.spec.js'), "test('c', () => {});\n"),
      },
    ];
    let expected = PORTS;
    for (const { what, edit, reran, replayed: fromRecords, moves } of steps) {
      if (moves) {
        assert.ok(expected.includes(moves[0]), `${what}: ${moves[0]} was found before`);
        expected = expected.map((port) => (port === moves[0] ? moves[1] : port));
      }
      const { incremental, ran, replayed } = await rescanAfter(edit, root, options, previous);
      assert.equal(incremental.mode, 'incremental', what);
      assert.deepEqual(ports(incremental), [...expected].sort(), what);
      assert.equal(ran, reran, `${what}: units run again`);
      if (fromRecords !== undefined) assert.equal(replayed, fromRecords, `${what}: units answered from their records`);
      const full = await scan(root, { ...options, exclude: () => false });
      assert.deepEqual(found(incremental), found(full), what);
      // Notes in the same order as a full scan's, whichever units ran and which were answered.
      assert.deepEqual(incremental.notes, full.notes, what);
      previous = incremental.snapshot;
    }
  });

  test('test scripts planned over the kept walk: a plan is reused while its manifest and what it read stand', async (t) => {
    const { root, first, options } = await scannedOnce(t, {
      'package.json': pj({ workspaces: ['packages/*'], scripts: { test: 'npm test --workspaces' } }),
      'packages/a/package.json': JEST, 'packages/a/a.test.js': "test('a', () => {});\n",
      // The test script runs a shell script, which names the runner.
      'packages/b/package.json': pj({ scripts: { test: 'sh scripts/test.sh' }, devDependencies: { jest: '^29', vitest: '^3' } }),
      'packages/b/scripts/test.sh': '#!/bin/sh\njest\n',
      'packages/b/b.test.js': "test('b', () => {});\n",
      'packages/c/package.json': JEST, 'packages/c/c.test.js': "test('c', () => {});\n",
      // A case pattern that is no valid pattern: refused, with a note each scan gives (a kept plan would not).
      'packages/d/package.json': pj({ scripts: { test: 'case "$CI" in [x) exit 1;; esac' } }),
    });
    const frameworks = (result: ScanResult): string[] => result.tests.map((x) => `${x.file} ${x.framework}`);
    assert.ok(first.notes.some((n) => n.includes('shell pattern "[x" is not used')), first.notes.join('\n'));
    assert.deepEqual(frameworks(first), ['packages/a/a.test.js jest', 'packages/b/b.test.js jest', 'packages/c/c.test.js jest']);
    let previous = first.snapshot;
    const steps: Array<{ what: string; edit: () => void; tests: string[] }> = [
      {
        what: 'a package\'s test script edited (its plan made again)',
        edit: () => writeFileSync(join(root, 'packages/a/package.json'), pj({ scripts: { test: 'vitest run' }, devDependencies: { vitest: '^3' } })),
        tests: ['packages/a/a.test.js vitest', 'packages/b/b.test.js jest', 'packages/c/c.test.js jest'],
      },
      {
        // A plan that read a file is never kept: the shell script edited in place runs another runner.
        what: 'the shell script a test script runs, edited in place',
        edit: () => writeFileSync(join(root, 'packages/b/scripts/test.sh'), '#!/bin/sh\nvitest run\n'),
        tests: ['packages/a/a.test.js vitest', 'packages/b/b.test.js vitest', 'packages/c/c.test.js jest'],
      },
      {
        what: 'another package\'s manifest rewritten with no test script',
        edit: () => writeFileSync(join(root, 'packages/c/package.json'), pj({ devDependencies: { jest: '^29' } })),
        tests: ['packages/a/a.test.js vitest', 'packages/b/b.test.js vitest'],
      },
      {
        what: 'and given one again',
        edit: () => writeFileSync(join(root, 'packages/c/package.json'), JEST),
        tests: ['packages/a/a.test.js vitest', 'packages/b/b.test.js vitest', 'packages/c/c.test.js jest'],
      },
    ];
    for (const { what, edit, tests } of steps) {
      const { incremental } = await rescanAfter(edit, root, options, previous);
      assert.equal(incremental.mode, 'incremental', what);
      assert.deepEqual(frameworks(incremental), tests, what);
      const full = await scan(root, { ...options, exclude: () => false });
      assert.deepEqual(found(incremental), found(full), what);
      assert.deepEqual(incremental.notes, full.notes, what);
      previous = incremental.snapshot;
    }
  });

  test('a hostile monorepo: units that resolve a name through 600 package.json files are not kept, and still agree', async (t) => {
    // 600 packages, each config importing the shared one by name: each unit depends on 601 package.json
    // files, past what one record may hold (unit-memo.ts MAX_UNIT_WEIGHT).
    const files: Record<string, string> = {
      'package.json': pj({ workspaces: ['packages/*'], scripts: { test: 'npm test --workspaces' } }),
      'packages/shared/package.json': pj({ name: '@acme/test-config', main: 'index.js' }),
      'packages/shared/index.js': "module.exports = { testMatch: ['**/*.check.js'] };\n",
    };
    for (let i = 0; i < 600; i++) {
      files[`packages/p${i}/package.json`] = JEST;
      files[`packages/p${i}/jest.config.js`] = "module.exports = { ...require('@acme/test-config') };\n";
      files[`packages/p${i}/a.check.js`] = "test('a', () => {});\n";
    }
    const { root, first, options: OPTIONS } = await scannedOnce(t, files);
    assert.equal(first.tests.length, 600);
    const { incremental, ran, replayed } = await rescanAfter(
      () => writeFileSync(join(root, 'packages/p7/jest.config.js'), "module.exports = { testMatch: ['**/*.none.js'] };\n"),
      root, OPTIONS, first.snapshot);
    assert.equal(incremental.tests.length, 599);
    assert.equal(ran, 600, 'every JS unit runs: none was kept');
    // The 602 package.json files' port units and the entry files' (the shared package's `main`) included.
    assert.equal(replayed, 10 + FINDERS + 602 + 1, 'the non-JS rules and the port units are answered from their records');
    assert.deepEqual(found(incremental), found(await scan(root, { ...OPTIONS, exclude: () => false })));
  });

  test('a unit that used the whole tree is kept however much it asked of it (pytest entering 600 directories)', async (t) => {
    const files: Record<string, string> = {
      'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
      'crate/Cargo.toml': '[package]\nname = "c"\nversion = "0.1.0"\n',
      'crate/tests/it.rs': '#[test]\nfn a() {}\n',
    };
    // pytest asks the tree about every directory it enters (a conda env marker): 601 answers, past the 512 a
    // record may hold for another walk; a unit that saw the whole tree keeps none of them.
    for (let i = 0; i < 600; i++) files[`tests/d${i}/test_x${i}.py`] = 'def test_a():\n    pass\n';
    const { root, first, options: OPTIONS } = await scannedOnce(t, files);
    assert.equal(first.tests.length, 601);
    const { incremental, ran, replayed } = await rescanAfter(
      () => writeFileSync(join(root, 'crate/Cargo.toml'), '[package]\nname = "c"\nversion = "0.1.1"\n'),
      root, OPTIONS, first.snapshot);
    assert.equal(ran, 1, 'only the Cargo rule runs again');
    assert.equal(replayed, 9 + FINDERS, 'pytest\'s rule is answered from its record, with 8 others and the port finders');
    assert.deepEqual(found(incremental), found(await scan(root, { ...OPTIONS, exclude: () => false })));
  });

  test('a scan from no snapshot (a first scan, ?full=1) answers no unit from a record, and records for the next', async (t) => {
    const { root, first, options: OPTIONS } = await scannedOnce(t, TREE);
    // The process holds records for this root now. A project removed and added again at the same path (its
    // first scan) or `?full=1`: no snapshot is given, and every unit runs, as asked.
    const before = { ...OPTIONS.cache.units!.counts };
    const again = await scan(root, OPTIONS);
    const after = OPTIONS.cache.units!.counts;
    assert.equal(after.replayed - before.replayed, 0, 'no unit answered from a record');
    assert.ok(after.ran - before.ran >= 10, `every unit ran (${after.ran - before.ran})`);
    assert.deepEqual(found(again), found(first));
    // Its records serve the rescan that follows: only the unit whose config moved runs.
    const { ran, replayed } = await rescanAfter(
      () => writeFileSync(join(root, 'packages/b/jest.config.js'), "module.exports = { testMatch: ['**/*.spec.js'] };\n"),
      root, OPTIONS, again.snapshot);
    assert.equal(ran, 1);
    assert.ok(replayed >= 10, `units answered from their records (${replayed})`);
  });

  test('a scan process short of heap drops the records of other roots, and their units run again', async (t) => {
    const tree = {
      'package.json': pj({ workspaces: ['packages/*'], scripts: { test: 'npm test --workspaces' } }),
      'packages/a/package.json': JEST, 'packages/a/a.test.js': "test('a', () => {});\n",
      'packages/b/package.json': JEST, 'packages/b/b.test.js': "test('b', () => {});\n",
    };
    const [one, two] = [makeTree(t, tree), makeTree(t, tree)];
    const options = keeping();
    await sleep(60);
    const [first, other] = [await scan(one, options), await scan(two, options)];
    const edit = (root: string) => () => writeFileSync(join(root, 'packages/a/jest.config.js'), 'module.exports = {};\n');
    // Kept: only the package whose config appeared runs (and the 10 non-JS rules and the port finders, the walk
    // being new); the other package's unit and the 3 package.json files' port units are answered.
    assert.equal((await rescanAfter(edit(one), one, options, first.snapshot)).replayed, 1 + 3);
    options.cache.units!.drop(realpathSync(one));
    const dropped = await rescanAfter(edit(two), two, options, other.snapshot);
    assert.equal(dropped.replayed, 0, 'the records of the other root were dropped');
    assert.deepEqual(found(dropped.incremental), found(await scan(two, { ...options, exclude: () => false })));
  });
});
