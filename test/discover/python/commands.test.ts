import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { discoverOthers } from '../../../src/discover/others.ts';
import { declaredPyCommands } from '../../../src/discover/python/commands.ts';
import { commandsFromLine } from '../../../src/discover/python/words.ts';
import { createContext } from '../../../src/scan/context.ts';
import type { RunInfo } from '../../../src/rules/types.ts';
import { walk } from '../../../src/scan/walk/walk.ts';
import { fixture, makeTree } from '../../helpers/index.ts';

async function discover(root: string): Promise<{ tests: Array<{ file: string; framework: string; cases?: number }>; runs: RunInfo[]; notes: string[] }> {
  const runs: RunInfo[] = [];
  const ctx = createContext(root, await walk(root));
  const follow = ctx.follow.bind(ctx);
  ctx.follow = (run) => { runs.push(run); follow(run); };
  const tests = [...await discoverOthers(ctx)].sort((a, b) => (a.file < b.file ? -1 : 1));
  return { tests, runs, notes: ctx.notes };
}
const files = async (root: string): Promise<string[]> => (await discover(root)).tests.map((t) => t.file);
const T = 'def test_x():\n    assert True\n';
const U = 'import unittest\n\n\nclass C(unittest.TestCase):\n    def test_x(self):\n        pass\n';

suite('Python test commands', () => {
  test('Django: `coverage run manage.py test blog shop` from a Makefile with $(PYTHON) (checked with Django 3.2)', async () => {
    const { tests, runs } = await discover(fixture('py-django'));
    assert.deepEqual(tests, [
      { file: 'blog/tests.py', framework: 'unittest', cases: 2 },
      { file: 'shop/tests/test_views.py', framework: 'unittest', cases: 1 },
    ]);
    assert.equal(runs[0]?.command, 'python3 -m coverage run --source=. manage.py test blog shop --parallel -v 2');
  });

  test('tox: {envsitepackagesdir}/pkg is the src/ package, {toxinidir} the project, {posargs:-q} its default; doctest modules', async () => {
    const { tests } = await discover(fixture('py-tox-doctest'));
    assert.deepEqual(tests, [
      { file: 'src/inventory/__init__.py', framework: 'pytest', cases: 2 },
      { file: 'src/inventory/stock.py', framework: 'pytest', cases: 3 },
      { file: 'tests/test_stock.py', framework: 'pytest', cases: 1 },
    ]);
  });

  test('tox changedir: the command runs there', async (t) => {
    const root = makeTree(t, {
      'tox.ini': '[tox]\nenvlist = py3\n\n[testenv]\nchangedir = {toxinidir}/tests\ncommands = python -m unittest discover -p "*_test.py"\n',
      'tests/a_test.py': U, 'tests/sub/__init__.py': '', 'tests/sub/b_test.py': U, 'other/c_test.py': U,
    });
    assert.deepEqual(await files(root), ['tests/a_test.py', 'tests/sub/b_test.py']);
  });

  test('tox {env:NAME:default} and factor-conditional lines (the shape pluggy uses)', async (t) => {
    const root = makeTree(t, {
      'tox.ini': '[tox]\nenvlist = docs,py{310,311}\n\n[testenv]\ncommands =\n  {env:_TOX_CMD:pytest} {posargs}\n  coverage: coverage report -m\nsetenv =\n  coverage: _TOX_CMD=coverage run -m pytest\n\n[testenv:benchmark]\ncommands = pytest {posargs:testing/benchmark.py}\n\n[pytest]\ntestpaths = testing\n',
      'testing/test_a.py': T, 'testing/benchmark.py': T, 'docs/test_conf.py': T,
    });
    const { tests, runs } = await discover(root);
    assert.deepEqual(tests.map((x) => x.file), ['testing/test_a.py']);
    assert.equal(runs[0]?.command, 'pytest');
  });

  test('tox 4 substitution names: {env_python}, {env_site_packages_dir}/pkg, {tox_root} in tox.ini and tox.toml', async (t) => {
    const ini = makeTree(t, {
      'tox.ini': '[tox]\nenv_list = py3\n\n[testenv]\ncommands =\n  {env_python} -m pytest {tty:--color=yes} {posargs} {env_site_packages_dir}{/}pkg/tests {tox_root}{/}extra\n',
      'src/pkg/__init__.py': '', 'src/pkg/tests/test_a.py': T, 'extra/test_b.py': T, 'other/test_c.py': T,
    });
    assert.deepEqual(await files(ini), ['extra/test_b.py', 'src/pkg/tests/test_a.py']);
    const toml = makeTree(t, {
      'tox.toml': 'env_list = ["3.13"]\n\n[env_run_base]\ncommands = [["{env_bin_dir}/python", "-m", "pytest", "{tox_root}/tests"]]\n',
      'tests/test_a.py': T, 'other/test_c.py': T,
    });
    assert.deepEqual(await files(toml), ['tests/test_a.py']);
  });

  test('tox.toml env_run_base commands and a noxfile session.run', async (t) => {
    const toml = makeTree(t, {
      'tox.toml': 'env_list = ["3.13"]\n\n[env_run_base]\ndeps = ["pytest"]\ncommands = [["pytest", "{posargs}", "tests/unit"]]\n',
      'tests/unit/test_a.py': T, 'tests/e2e/test_b.py': T,
    });
    assert.deepEqual(await files(toml), ['tests/unit/test_a.py']);
    const nox = makeTree(t, {
      'noxfile.py': 'import nox\n\n\n@nox.session\ndef tests(session):\n    session.install(".")\n    session.run("python", "-m", "unittest", "discover", "-s", "tests", "-p", "check_*.py", *session.posargs)\n',
      'tests/check_api.py': U, 'tests/test_api.py': U,
    });
    assert.deepEqual(await files(nox), ['tests/check_api.py']);
  });

  test('hatch and pdm scripts: {args:default} and cmd arrays', async (t) => {
    const hatch = makeTree(t, {
      'pyproject.toml': '[tool.hatch.envs.test]\ndependencies = ["pytest"]\n\n[tool.hatch.envs.test.scripts]\ntest = "pytest {args:tests/unit}"\ntest-cov = "coverage run -m pytest {args:tests}"\n',
      'tests/unit/test_a.py': T, 'tests/slow/test_b.py': T,
    });
    assert.deepEqual(await files(hatch), ['tests/unit/test_a.py']);
    const pdm = makeTree(t, {
      'pyproject.toml': '[tool.pdm.scripts]\ntest = { cmd = ["pytest", "-q", "api/tests"] }\n',
      'api/tests/test_a.py': T, 'web/tests/test_b.py': T,
    });
    assert.deepEqual(await files(pdm), ['api/tests/test_a.py']);
  });

  test('CI workflow when nothing else names a command: working-directory and `cd`', async (t) => {
    const root = makeTree(t, {
      '.github/workflows/ci.yml': 'name: CI\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    defaults:\n      run:\n        working-directory: service\n    steps:\n      - uses: actions/checkout@v4\n      - run: pip install -e .[test]\n      - name: Test\n        run: |\n          python -m pytest tests -x\n',
      'service/setup.py': 'from setuptools import setup\nsetup()\n', 'service/tests/test_a.py': T, 'service/scripts/test_tool.py': T,
    });
    const { tests, runs } = await discover(root);
    assert.deepEqual(tests.map((x) => x.file), ['service/tests/test_a.py']);
    assert.deepEqual(runs[0], { package: '', command: 'python -m pytest tests -x', runner: 'pytest', config: null, notes: [] });
  });

  test('runtests.py: pytest.main literal args, unittest discover, unittest.main in the script itself', async (t) => {
    const py = makeTree(t, {
      'Makefile': 'test:\n\t./runtests.py\n',
      'runtests.py': '#!/usr/bin/env python\nimport sys\nimport pytest\n\nsys.exit(pytest.main(["-q", "tests/fast"] + sys.argv[1:]))\n',
      'tests/fast/test_a.py': T, 'tests/slow/test_b.py': T,
    });
    assert.deepEqual(await files(py), ['tests/fast/test_a.py']);
    const disc = makeTree(t, {
      'runtests.py': 'import unittest\n\nif __name__ == "__main__":\n    suite = unittest.TestLoader().discover("tests", pattern="*_tests.py")\n    unittest.TextTestRunner().run(suite)\n',
      'tests/api_tests.py': U, 'tests/test_other.py': U,
    });
    assert.deepEqual(await files(disc), ['tests/api_tests.py']);
  });

  test('command words: wrappers and launchers reach the runner; other commands are not test runs', () => {
    const one = (line: string): unknown => commandsFromLine(line, 'x').map((c) => [c.runner, c.args, c.cwd ?? '', !!c.django]);
    assert.deepEqual(one('uv run --with pytest-cov pytest -x tests'), [['pytest', ['-x', 'tests'], '', false]]);
    assert.deepEqual(one('cd backend && poetry run python -W error -m pytest'), [['pytest', [], 'backend', false]]);
    assert.deepEqual(one('coverage run --source src -m unittest discover -s t'), [['unittest', ['discover', '-s', 't'], '', false]]);
    assert.deepEqual(one('python -m django test --settings=x.settings'), [['unittest', ['--settings=x.settings'], '', true]]);
    assert.deepEqual(one('flake8 . && mypy src'), []);
  });

  test('a bare runtests.py with no other command is followed', async (t) => {
    const root = makeTree(t, { 'runtests.py': 'import django\nfrom django.test.utils import get_runner\n', 'app/__init__.py': '', 'app/tests.py': U });
    const ctx = createContext(root, await walk(root));
    assert.deepEqual((await declaredPyCommands(ctx)).map((c) => [c.runner, c.django]), [['unittest', true]]);
  });

  test('a runner module started as `python -m pkg.tests` (one hop from a CI line): listed modules, a listing, doctests', async (t) => {
    const root = makeTree(t, {
      '.github/workflows/ci.yml': 'jobs:\n  t:\n    steps:\n      - run: python -m pip install .\n      - run: python -m jsonish.tests._runner .\n',
      'jsonish/__init__.py': 'def dumps(x):\n    """\n    >>> dumps(1)\n    \'1\'\n    """\n',
      'jsonish/decoder.py': 'def loads(s):\n    return s\n',
      'jsonish/encoder.py': 'def enc(x):\n    """>>> enc(2)\n    2\n    """\n',
      'jsonish/tests/_runner.py': 'import sys\nimport jsonish.tests\n\nif __name__ == "__main__":\n    jsonish.tests.main(project_dir=sys.argv[1])\n',
      'jsonish/tests/__init__.py': [
        'import os', 'import unittest', '', '', 'class NoSpeedups(unittest.TestCase):', '    def runTest(self):', '        pass', '', '',
        'def doctests(suite):', '    import doctest', '    import jsonish', '    import jsonish.encoder', '    import jsonish.decoder',
        '    for mod in (jsonish, jsonish.encoder, jsonish.decoder):', '        suite.addTest(doctest.DocTestSuite(mod))',
        '    suite.addTest(doctest.DocFileSuite(os.path.join(project_dir, "README.rst"), module_relative=False))', '    return suite', '', '',
        'def all_tests():', '    names = [', '        "jsonish.tests.%s" % (os.path.splitext(f)[0],)',
        '        for f in os.listdir(os.path.dirname(__file__))', '        if f.startswith("test_") and f.endswith(".py")', '    ]',
        '    suite = doctests(unittest.TestLoader().loadTestsFromNames(names))', '    suite.addTest(NoSpeedups())', '    return suite', '',
      ].join('\n'),
      'jsonish/tests/test_a.py': U, 'jsonish/tests/test_b.py': U, 'jsonish/tests/helper.py': '', 'README.rst': '>>> 1\n1\n',
    });
    // decoder.py has no example, so its DocTestSuite runs nothing.
    assert.deepEqual(await files(root), [
      'README.rst', 'jsonish/__init__.py', 'jsonish/encoder.py', 'jsonish/tests/__init__.py', 'jsonish/tests/test_a.py', 'jsonish/tests/test_b.py',
    ]);
  });

  test('runtests.py with a literal module list and a DocTestSuite of a named module; a runner script nothing runs is not read', async (t) => {
    const root = makeTree(t, {
      'runtests.py': [
        'import unittest', 'import doctest', '', 'TEST_MODULES = [', "    'tests.test_parser',", "    'tests.test_lexer',", ']', '',
        'suite = unittest.TestSuite()', 'for name in TEST_MODULES:', '    suite.addTest(unittest.defaultTestLoader.loadTestsFromName(name))',
        "suite.addTest(doctest.DocTestSuite('calc.ops'))", 'unittest.TextTestRunner(verbosity=1).run(suite)', '',
      ].join('\n'),
      'tests/__init__.py': '', 'tests/test_parser.py': U, 'tests/test_lexer.py': U, 'tests/test_slow.py': U,
      'calc/__init__.py': '', 'calc/ops.py': 'def add(a, b):\n    """>>> add(1, 2)\n    3\n    """\n',
      'sub/run_tests.py': "import unittest, doctest\nfrom calc import ops\nsuite = unittest.TestLoader().discover('checks')\nsuite.addTest(doctest.DocTestSuite(ops))\n",
    });
    assert.deepEqual(await files(root), ['calc/ops.py', 'tests/test_lexer.py', 'tests/test_parser.py']);
  });

  test('CI that runs pytest again in directories with their own configs adds their suites to the declared root run', async (t) => {
    const root = makeTree(t, {
      'pyproject.toml': '[project]\nname = "x"\n[tool.pytest.ini_options]\naddopts = "-q"\n',
      'Makefile': 'test:\n\tpython -m pytest tests\n',
      '.github/workflows/ci.yml': [
        'jobs:', '  root:', '    steps:', '      - run: make test', '  backend:', '    steps:', '      - run: cd backend && python -m pytest',
        '  worker:', '    defaults:', '      run:', '        working-directory: worker', '    steps:', '      - run: pytest',
        '  docs:', '    steps:', '      - run: cd docs && pytest',
      ].join('\n') + '\n',
      'tests/test_r.py': T, 'backend/pytest.ini': '[pytest]\ntestpaths = tests\n', 'backend/tests/test_a.py': T, 'backend/other/test_b.py': T,
      'worker/pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["checks"]\npython_files = ["check_*.py"]\n',
      'worker/checks/check_c.py': T, 'worker/tests/test_d.py': T, 'docs/test_e.py': T,
    });
    // docs/ has no config of its own: pytest finds the root one above it and collects docs/ (checked with pytest 9).
    assert.deepEqual(await files(root), ['backend/tests/test_a.py', 'docs/test_e.py', 'tests/test_r.py', 'worker/checks/check_c.py']);
  });

  test('a justfile test recipe is a declared command; a Taskfile task CI calls is followed (deps, nested task calls) to its pytest line', async (t) => {
    const just = makeTree(t, {
      'justfile': 'set shell := ["bash", "-c"]\n\n# run the unit tests\ntest *args: lint\n    uv run pytest tests/unit {{args}}\n\nlint:\n    ruff check .\n',
      'pyproject.toml': '[project]\nname = "x"\n', 'tests/unit/test_a.py': T, 'tests/slow/test_b.py': T,
    });
    assert.deepEqual(await files(just), ['tests/unit/test_a.py']);
    const task = makeTree(t, {
      'Taskfile.yml': "version: '3'\ntasks:\n  ci:\n    deps: [install]\n    cmds:\n      - task: test:unit\n  test:unit:\n    cmds:\n      - python -m pytest tests/unit -q\n  install: pip install -e .\n",
      '.github/workflows/ci.yml': 'jobs:\n  t:\n    steps:\n      - run: task ci\n',
      'tests/unit/test_a.py': T, 'tests/slow/test_b.py': T, 'setup.cfg': '[metadata]\nname = x\n',
    });
    assert.deepEqual(await files(task), ['tests/unit/test_a.py']);
  });

  test('Travis CI `script:` runs test/run_all_tests.py, which imports every test*.py of its directory', async (t) => {
    const root = makeTree(t, {
      '.travis.yml': 'language: python\npython:\n  - 3.6\nscript:\n  - python setup.py install\n  - python test/run_all_tests.py loop://\n',
      'test/run_all_tests.py': [
        'import unittest', 'import sys', 'import os', '', 'mainsuite = unittest.TestSuite()', 'for modulename in [',
        '        os.path.splitext(x)[0]', "        for x in os.listdir(os.path.dirname(__file__) or '.')",
        '        if x != __file__ and x.startswith("test") and x.endswith(".py")', ']:',
        '    module = __import__(modulename)', '    mainsuite.addTest(unittest.findTestCases(module))', '',
      ].join('\n'),
      'test/test.py': U, 'test/test_url.py': U, 'test/helpers.py': '', 'test/handlers/test_proto.py': U, 'setup.py': '',
    });
    assert.deepEqual(await files(root), ['test/test.py', 'test/test_url.py']);
  });
});

