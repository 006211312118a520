import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { discoverOthers } from '../../../src/discover/others.ts';
import { createContext } from '../../../src/scan/context.ts';
import { walk } from '../../../src/scan/walk/walk.ts';
import { fixture, makeTree } from '../../helpers/index.ts';

async function discover(root: string): Promise<{ tests: Array<{ file: string; framework: string; cases?: number }>; notes: string[] }> {
  const ctx = createContext(root, await walk(root));
  const tests = [...await discoverOthers(ctx)].sort((a, b) => (a.file < b.file ? -1 : 1));
  return { tests, notes: ctx.notes };
}

suite('discoverOthers() python', () => {
  test('pytest defaults: test_*.py and *_test.py, conftest and decoys skipped, venvs/build/dist/dot dirs pruned', async () => {
    const { tests } = await discover(fixture('py-defaults'));
    assert.deepEqual(tests, [
      { file: 'docs/test_usage.txt', framework: 'pytest', cases: 1 },
      { file: 'src/shop/test_utils.py', framework: 'pytest', cases: 1 },
      { file: 'tests/models_test.py', framework: 'pytest', cases: 2 },
      { file: 'tests/test_api.py', framework: 'pytest', cases: 4 },
    ]);
  });

  test('pyproject testpaths and python_files replace the defaults', async () => {
    const { tests } = await discover(fixture('py-pyproject'));
    assert.deepEqual(tests.map((t) => t.file), ['integration/test_db.py', 'tests/check_health.py', 'tests/test_routes.py']);
  });

  test('pytest.ini wins over setup.cfg and its norecursedirs replaces the defaults (build/dist collected)', async () => {
    const { tests } = await discover(fixture('py-pytestini'));
    assert.deepEqual(tests.map((t) => t.file), ['build/test_build.py', 'dist/check/test_dist.py', 'tests/test_a.py']);
  });

  test('setup.cfg [tool:pytest] testpaths and --ignore in multi-line addopts', async () => {
    const { tests } = await discover(fixture('py-setupcfg'));
    assert.deepEqual(tests, [{ file: 'tests/test_fast.py', framework: 'pytest', cases: 1 }]);
  });

  test('unittest from tox.ini commands: start dir, pattern, packages only, valid module names', async () => {
    const { tests } = await discover(fixture('py-unittest-tox'));
    assert.deepEqual(tests, [
      { file: 'tests/api_tests.py', framework: 'unittest', cases: 2 },
      { file: 'tests/sub/db_tests.py', framework: 'unittest', cases: 1 },
    ]);
  });

  test('a pytest command in the Makefile wins, and its path args replace testpaths', async (t) => {
    const root = makeTree(t, {
      'Makefile': 'test:\n\t@python -m pytest tests/unit -x\n\nlint:\n\tpython -m unittest\n',
      'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
      'tests/unit/test_a.py': 'def test_a(): pass\n',
      'tests/e2e/test_b.py': 'def test_b(): pass\n',
      'node_modules/pkg/test_c.py': 'def test_c(): pass\n',
    });
    const { tests } = await discover(root);
    assert.deepEqual(tests.map((x) => x.file), ['tests/unit/test_a.py']);
  });

  test('no declared runner: pytest defaults with a note; unittest module-name command', async (t) => {
    const bare = makeTree(t, { 'setup.py': '', 'pkg/test_x.py': 'class TestX:\n    def test_y(self): pass\n' });
    const { tests, notes } = await discover(bare);
    assert.deepEqual(tests, [{ file: 'pkg/test_x.py', framework: 'pytest', cases: 1 }]);
    assert.match(notes[0] ?? '', /no Python test runner/);

    const named = makeTree(t, {
      'tox.ini': '[testenv]\ncommands = python -m unittest tests.test_one tests.test_two.Case.test_x\n',
      'tests/test_one.py': '', 'tests/test_two.py': '', 'tests/test_three.py': '',
    });
    assert.deepEqual((await discover(named)).tests.map((x) => x.file), ['tests/test_one.py', 'tests/test_two.py']);
  });

  test('no declared runner and no file pytest would collect: a bare `python -m unittest` finds tests.py', async (t) => {
    const app = makeTree(t, {
      'requirements.txt': 'flask\n', 'app/__init__.py': '', 'app/models.py': '', 'microblog.py': '',
      'tests.py': 'import unittest\n\nclass UserModelCase(unittest.TestCase):\n    def test_a(self): pass\n\n    def test_b(self): pass\n',
      'app/tests-old.py': '', 'docs/testing.py': '',
    });
    const { tests, notes } = await discover(app);
    assert.deepEqual(tests, [{ file: 'tests.py', framework: 'unittest', cases: 2 }]);
    assert.match(notes.join('\n'), /pytest's defaults collect no file here, so listed the modules `python -m unittest` would discover/);
  });

  test('a project without Python files yields nothing', async (t) => {
    assert.deepEqual((await discover(makeTree(t, { 'README.md': '# hi\n' }))).tests, []);
  });
});

suite('discoverOthers() pytest options', () => {
  test('--ignore-glob in addopts is an fnmatch over the project-relative path; conda envs skipped', async (t) => {
    const root = makeTree(t, {
      'pytest.ini': '[pytest]\naddopts = --ignore-glob=*/legacy_* --ignore tests/skip\n',
      'tests/test_keep.py': 'def test_a(): pass\n',
      'tests/legacy_stuff/test_old.py': 'def test_b(): pass\n',
      'tests/skip/test_s.py': 'def test_c(): pass\n',
      'conda/conda-meta/history': '',
      'conda/lib/test_conda.py': 'def test_d(): pass\n',
    });
    const { tests } = await discover(root);
    assert.deepEqual(tests.map((x) => x.file), ['tests/test_keep.py']);
  });
});

suite('discoverOthers() python monorepo', () => {
  test('without a root config, each outermost sub-project config is its own pytest run', async (t) => {
    const root = makeTree(t, {
      'package.json': '{"name":"mono"}',
      'backend/pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
      'backend/tests/test_api.py': 'def test_a(): pass\n',
      'backend/scripts/test_tool.py': 'def test_b(): pass\n',
      'backend/plugins/pytest.ini': '[pytest]\npython_files = nope_*.py\n',
      'backend/tests/plugins/test_plugin.py': 'def test_p(): pass\n',
      'ml/setup.cfg': '[tool:pytest]\npython_files = check_*.py\n',
      'ml/check_model.py': 'def test_m(): pass\n',
      'ml/test_skipped.py': 'def test_s(): pass\n',
      'ml/build/pytest.ini': '[pytest]\n',
      'svc/tox.ini': '[testenv]\ncommands = python -m unittest discover -s unit\n',
      'svc/unit/test_svc.py': 'import unittest\nclass T(unittest.TestCase):\n    def test_x(self): pass\n',
    });
    const { tests, notes } = await discover(root);
    assert.deepEqual(tests, [
      { file: 'backend/tests/plugins/test_plugin.py', framework: 'pytest', cases: 1 },
      { file: 'backend/tests/test_api.py', framework: 'pytest', cases: 1 },
      { file: 'ml/check_model.py', framework: 'pytest', cases: 1 },
      { file: 'svc/unit/test_svc.py', framework: 'unittest', cases: 1 },
    ]);
    assert.deepEqual(notes, []);
  });
});

suite('discoverOthers() django', () => {
  test('manage.py test (declared or implied) is unittest discovery through packages', async (t) => {
    const files = {
      'manage.py': 'import os\nos.environ.setdefault("DJANGO_SETTINGS_MODULE", "site.settings")\nfrom django.core.management import execute_from_command_line\n',
      'blog/__init__.py': '', 'blog/tests.py': 'from django.test import TestCase\nclass T(TestCase):\n    def test_a(self): pass\n',
      'shop/__init__.py': '', 'shop/tests/__init__.py': '', 'shop/tests/test_views.py': 'from django.test import TestCase\nclass V(TestCase):\n    def test_v(self): pass\n',
      'scripts/test_tool.py': '',
    };
    const implied = await discover(makeTree(t, files));
    assert.deepEqual(implied.tests, [
      { file: 'blog/tests.py', framework: 'unittest', cases: 1 },
      { file: 'shop/tests/test_views.py', framework: 'unittest', cases: 1 },
    ]);
    const declared = await discover(makeTree(t, { ...files, 'Makefile': 'test:\n\tpython manage.py test -p "test_*.py"\n' }));
    assert.deepEqual(declared.tests.map((x) => x.file), ['shop/tests/test_views.py']);
  });
});
