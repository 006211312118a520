import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { discoverOthers } from '../../../src/discover/others.ts';
import { parsePytestArgs } from '../../../src/discover/python/args.ts';
import { countDoctests } from '../../../src/discover/python/doctest.ts';
import { fnmatchEx } from '../../../src/discover/python/pytest.ts';
import { createContext } from '../../../src/scan/context.ts';
import type { RunInfo } from '../../../src/rules/types.ts';
import { walk } from '../../../src/scan/walk/walk.ts';
import { fixture, makeTree } from '../../helpers/index.ts';

interface Found { file: string; framework: string; cases?: number }

async function discover(root: string): Promise<{ tests: Found[]; notes: string[]; runs: RunInfo[] }> {
  const runs: RunInfo[] = [];
  const ctx = createContext(root, await walk(root));
  const follow = ctx.follow.bind(ctx);
  ctx.follow = (run) => { runs.push(run); follow(run); };
  const tests = [...await discoverOthers(ctx)].sort((a, b) => (a.file < b.file ? -1 : 1));
  return { tests, notes: ctx.notes, runs };
}

const T = 'def test_x():\n    assert True\n';

// Every expected list here was checked against pytest 9.0.3 `--collect-only -q` on the same tree.
suite('pytest 9 configuration', () => {
  test('native [tool.pytest] arrays, fnmatch_ex patterns with a slash, conftest collect_ignore, addopts ignores and deselect', async () => {
    const { tests, notes, runs } = await discover(fixture('py-pytest9'));
    assert.deepEqual(tests, [
      { file: 'docs/guide.rst', framework: 'pytest', cases: 2 },
      { file: 'tests/checks/db.py', framework: 'pytest', cases: 2 },
      { file: 'tests/test_windows.py', framework: 'pytest', cases: 1 },
      { file: 'tests/unit/test_math.py', framework: 'pytest', cases: 2 },
    ]);
    assert.match(notes.join('\n'), /tests\/conftest\.py: collect_ignore is computed or conditional/);
    assert.deepEqual(runs, [{ package: '', command: null, runner: 'pytest', config: 'pyproject.toml', notes: [] }]);
  });

  test('precedence in one directory: pytest.toml, then pytest.ini, then pyproject; tox.ini without [pytest] is passed over', async (t) => {
    const first = makeTree(t, {
      'pytest.toml': '[pytest]\ntestpaths = ["a"]\n', 'pytest.ini': '[pytest]\ntestpaths = b\n',
      'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["c"]\n',
      'a/test_a.py': T, 'b/test_b.py': T, 'c/test_c.py': T,
    });
    assert.deepEqual((await discover(first)).tests.map((x) => x.file), ['a/test_a.py']);
    const cfg = makeTree(t, { 'tox.ini': '[tox]\nenvlist = py3\n', 'setup.cfg': '[tool:pytest]\ntestpaths = u\n', 't/test_1.py': T, 'u/test_2.py': T });
    const result = await discover(cfg);
    assert.deepEqual(result.tests.map((x) => x.file), ['u/test_2.py']);
    assert.equal(result.runs[0]?.config, 'setup.cfg');
  });

  test('[tool.pytest] with [tool.pytest.ini_options] is a usage error: nothing collected, said in a note', async (t) => {
    const root = makeTree(t, { 'pyproject.toml': '[tool.pytest]\ntestpaths = ["t"]\n[tool.pytest.ini_options]\naddopts = "-q"\n', 't/test_b.py': T });
    const { tests, notes } = await discover(root);
    assert.deepEqual(tests, []);
    assert.match(notes[0] ?? '', /pytest refuses \[tool\.pytest\] together with/);
  });

  test('the config is looked up from the command paths upward; -c moves the rootdir so testpaths is not used', async (t) => {
    const nested = makeTree(t, {
      'tox.ini': '[testenv]\ncommands = pytest tests {posargs}\n',
      'tests/pytest.ini': '[pytest]\npython_files = check_*.py\n',
      'pyproject.toml': '[tool.pytest.ini_options]\npython_files = ["test_*.py"]\n',
      'tests/check_d.py': T, 'tests/test_d.py': T,
    });
    const a = await discover(nested);
    assert.deepEqual(a.tests.map((x) => x.file), ['tests/check_d.py']);
    assert.deepEqual(a.runs, [{ package: '', command: 'pytest tests', runner: 'pytest', config: 'tests/pytest.ini', notes: [] }]);
    const moved = makeTree(t, {
      'Makefile': 'test:\n\tpytest -c ci/pytest.ini\n',
      'ci/pytest.ini': '[pytest]\ntestpaths = tests\n', 'tests/test_e1.py': T, 'extra/test_e2.py': T,
    });
    const b = await discover(moved);
    assert.deepEqual(b.tests.map((x) => x.file), ['extra/test_e2.py', 'tests/test_e1.py']);
    assert.match(b.runs[0]?.notes.join() ?? '', /testpaths in ci\/pytest\.ini not used/);
  });

  test('--rootdir, --deselect of a node id and --ignore given in the command itself', async (t) => {
    const root = makeTree(t, {
      'setup.cfg': '[tool:pytest]\ntestpaths = tests\n',
      'Makefile': 'test:\n\tpython -m pytest --rootdir=. --ignore tests/slow --deselect tests/test_a.py::test_x --cov src -p no:warnings\n',
      'src/test_src.py': T, 'tests/test_a.py': T + 'def test_y():\n    pass\n', 'tests/slow/test_s.py': T,
    });
    assert.deepEqual((await discover(root)).tests, [{ file: 'tests/test_a.py', framework: 'pytest', cases: 1 }]);
  });
});

suite('doctests', () => {
  test('--doctest-modules in addopts: every module with examples, conftest.py too, setup.py never; test*.txt always', async (t) => {
    const doc = (body: string): string => `"""\n${body}\n"""\n`;
    const root = makeTree(t, {
      'pytest.ini': '[pytest]\naddopts = --doctest-modules\n',
      'setup.py': 'from setuptools import setup\n' + doc('>>> 1\n1') + 'setup()\n',
      'conftest.py': doc('>>> 1\n1'),
      'pkg/__init__.py': '', 'pkg/plain.py': 'X = 1\n',
      'pkg/mod.py': 'def f():\n    """\n    >>> f()\n    2\n    """\n    return 2\n',
      'pkg/test_m.py': 'def test_a():\n    """\n    >>> 3\n    3\n    """\n',
      'test_notes.txt': '>>> 1\n1\n', 'notes.txt': '>>> 1\n1\n',
    });
    assert.deepEqual((await discover(root)).tests, [
      { file: 'conftest.py', framework: 'pytest', cases: 1 },
      { file: 'pkg/mod.py', framework: 'pytest', cases: 1 },
      { file: 'pkg/test_m.py', framework: 'pytest', cases: 2 },
      { file: 'test_notes.txt', framework: 'pytest', cases: 1 },
    ]);
  });
});

suite('names and folders both decide', () => {
  test('a test-named module or doctest file in a folder pytest does not enter is left out', async (t) => {
    const root = makeTree(t, {
      'pytest.ini': '[pytest]\nnorecursedirs = build\naddopts = --ignore=skip\n',
      'tests/test_a.py': 'def test_a(): pass\n', 'tests/helper.py': 'def test_not_collected(): pass\n',
      'build/test_b.py': 'def test_b(): pass\n', 'skip/test_c.py': 'def test_c(): pass\n',
      'tests/__pycache__/test_d.py': 'def test_d(): pass\n',
      'tests/test_e.txt': '>>> 1\n1\n', 'build/test_f.txt': '>>> 1\n1\n', 'skip/test_g.txt': '>>> 1\n1\n',
      'tests/notes.txt': '>>> 1\n1\n',
    });
    assert.deepEqual((await discover(root)).tests.map((x) => x.file), ['tests/test_a.py', 'tests/test_e.txt']);
  });
});

suite('pytest pieces', () => {
  test('fnmatch_ex: basename without a slash, any path tail with one', () => {
    assert.equal(fnmatchEx('test_*.py')('a/b/test_x.py'), true);
    assert.equal(fnmatchEx('checks/*.py')('tests/checks/db.py'), true);
    assert.equal(fnmatchEx('checks/*.py')('tests/mychecks/db.py'), false);
    assert.equal(fnmatchEx('tests/data')('pkg/tests/data'), true);
  });

  test('pytest words: values of options are not paths', () => {
    const a = parsePytestArgs(['--cov', 'src', '-ra', '-c', 'ci.ini', '--rootdir=.', '-kslow', '--junitxml', 'out.xml', 'tests', '--cov', '-x', '{posargs}']);
    assert.deepEqual(a.paths, ['tests']);
    assert.equal(a.configFile, 'ci.ini');
    assert.equal(a.rootdir, '.');
    assert.equal(countDoctests('"""\n>>> a()\n1\n>>> b(\n... 2)\n"""\n# >>>x\n'), 2);
  });

  test('a conftest.py hook that chooses collected files is named in a note', async (t) => {
    const root = makeTree(t, {
      'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
      'tests/test_a.py': 'def test_a():\n    pass\n',
      'tests/legacy/conftest.py': 'import pathlib\n\ndef pytest_ignore_collect(collection_path: pathlib.Path):\n    return collection_path.name != "test_all.py"\n',
      'tests/legacy/test_all.py': 'def test_b():\n    pass\n', 'tests/legacy/test_parts.py': 'def test_c():\n    pass\n',
    });
    const { tests, notes } = await discover(root);
    assert.deepEqual(tests.map((x) => x.file), ['tests/legacy/test_all.py', 'tests/legacy/test_parts.py', 'tests/test_a.py']);
    assert.deepEqual(notes.filter((n) => n.includes('conftest')), [
      'tests/legacy/conftest.py: defines `pytest_ignore_collect`, which chooses the files pytest collects below it; projdex cannot run it and listed files by the configured names',
    ]);
  });
});

