import { parseShell } from '../../readers/shell/parse.ts';
import { basename, joinPath } from '../../rules/paths.ts';

/** A Python test runner invocation a project declares for itself. */
export interface PyCommand {
  readonly runner: 'pytest' | 'unittest';
  /** Arguments after the runner (`pytest tests -q` -> `['tests', '-q']`; `-m unittest discover -s t` -> `['discover', '-s', 't']`). */
  readonly args: readonly string[];
  /** Where it was declared, for notes. */
  readonly source: string;
  /** The command as written, when known (shown in the scan's `runs`). */
  readonly text?: string;
  /** Directory it runs in, relative to the project root (tox `changedir`, CI `working-directory`). */
  readonly cwd?: string;
  /** Django's runner (`manage.py test`): labels may name packages or directories to discover in. */
  readonly django?: boolean;
  /** A `runtests.py`-style script it calls, to be read for the runner it reaches. */
  readonly script?: string;
  /** A test runner module it starts (`python -m tests`), to be read like a script. */
  readonly module?: string;
  /** A CI pytest run in another directory: it runs besides the declared source's lines. */
  readonly alsoRuns?: boolean;
  /** Files a runner module loads by name (test modules, doctest modules and files), listed as they are. */
  readonly files?: readonly string[];
}

// `python -m NAME` starts a test runner module when a part of NAME says so (`tests`, `pkg.tests.runner`).
const RUNNER_MODULE = /^(?:tests?|testing|run_?tests?|all_?tests|test_?all|test_?suite|_?\w*runner)$/;

// Python's own flags before `-m`/a script: `python -u -W error -X dev -m pytest`.
const PY_FLAG_VALUE = new Set(['-W', '-X', '-c']);
// `coverage run` options that take a value.
const COVERAGE_VALUE = new Set(['--source', '--rcfile', '--omit', '--include', '--concurrency', '--data-file', '--context']);
// Launchers that run the rest of the line: `poetry run`, `uv run`, `pdm run`, `hatch run`, `pipenv run`.
const LAUNCHERS = new Set(['poetry', 'uv', 'pdm', 'hatch', 'pipenv', 'rye', 'pixi']);

/**
 * Reads one shell line of a declared command into the Python test runs it starts: `pytest`/`py.test`,
 * `python -m pytest|unittest|django test`, `coverage run [-m] ...`, `manage.py test`, `django-admin test`,
 * a `runtests.py` script, behind `poetry|uv|pdm|hatch|pipenv run`, `env`, `xvfb-run`, `time`.
 *
 * @example
 * commandsFromLine('coverage run --source src -m pytest tests', 'tox.ini'); // [{ runner: 'pytest', args: ['tests'], ... }]
 */
export function commandsFromLine(line: string, source: string, at: { cwd?: string; base?: string } = {}): PyCommand[] {
  let cwd = at.cwd;
  const out: PyCommand[] = [];
  for (const cmd of parseShell(line)) {
    // `cd backend && pytest`: the runner runs in that directory.
    if (cmd.argv[0] === 'cd' && cmd.argv[1] !== undefined) { cwd = joinPath(cwd ?? at.base ?? '', cmd.argv[1]); continue; }
    const found = fromWords(cmd.argv, source);
    if (found) out.push({ ...found, text: line.trim(), ...(cwd === undefined ? {} : { cwd }) });
  }
  return out;
}

/** The run a list of literal words (one command's argv) starts, if it is a Python test runner. */
export function fromWords(argv: readonly string[], source: string): PyCommand | undefined {
  let i = 0;
  const make = (runner: PyCommand['runner'], args: readonly string[], more: Partial<PyCommand> = {}): PyCommand => ({ runner, args, source, ...more });
  const django = (args: readonly string[]): PyCommand => make('unittest', args, { django: true });
  // After `python [flags]` or `coverage run [opts]`: either `-m module ...` or a script path.
  const moduleOrScript = (): PyCommand | undefined => {
    if (argv[i] === '-m') {
      const mod = argv[i + 1];
      const rest = argv.slice(i + 2);
      if (mod === 'pytest' || mod === 'py.test') return make('pytest', rest);
      if (mod === 'unittest') return make('unittest', rest);
      if (mod === 'django' && rest[0] === 'test') return django(rest.slice(1));
      if (mod === 'coverage') { i += 2; return coverage(); }
      if (mod !== undefined && /^[\w.]+$/.test(mod) && mod.split('.').some((part) => RUNNER_MODULE.test(part))) return make('unittest', rest, { module: mod });
      return undefined;
    }
    const script = argv[i];
    if (script === undefined) return undefined;
    const name = basename(script);
    if (name === 'manage.py' && argv[i + 1] === 'test') return django(argv.slice(i + 2));
    if (/^(?:run_?)?(?:all_?)?tests?\.py$|^runtests|^test_?all\.py$/.test(name)) return make('unittest', argv.slice(i + 1), { script: script.replace(/^\.\//, '') });
    return undefined;
  };
  const coverage = (): PyCommand | undefined => {
    if (argv[i] !== 'run') return undefined;
    for (i++; i < argv.length && argv[i] !== '-m' && argv[i]!.startsWith('-'); i++) {
      if (COVERAGE_VALUE.has(argv[i]!)) i++;
    }
    return moduleOrScript();
  };
  while (i < argv.length) {
    const w = argv[i]!;
    const name = basename(w);
    if (/^(?:py\.test|pytest)(?:-3)?$/.test(name)) return make('pytest', argv.slice(i + 1));
    if (/^(?:python[\d.]*|py|\$[({]\w*PYTHON\w*[)}])$/i.test(name) || w === '{envpython}') {
      for (i++; i < argv.length && argv[i] !== '-m' && argv[i]!.startsWith('-'); i++) if (PY_FLAG_VALUE.has(argv[i]!)) i++;
      return moduleOrScript();
    }
    if (name === 'coverage') { i++; return coverage(); }
    if (name === 'manage.py' || name === 'runtests.py' || name === 'django-admin') {
      if (name === 'django-admin') return argv[i + 1] === 'test' ? django(argv.slice(i + 2)) : undefined;
      return moduleOrScript();
    }
    if (LAUNCHERS.has(name) && argv[i + 1] === 'run') {
      // `uv run --with x --extra test pytest`: skip the launcher's own options.
      for (i += 2; i < argv.length && argv[i]!.startsWith('-'); i++) if (/^--(?:with|extra|group|env|python|directory|project)$/.test(argv[i]!)) i++;
      continue;
    }
    if (['env', 'exec', 'time', 'xvfb-run', 'nice'].includes(name) || /^\w+=/.test(w)) { i++; continue; }
    return undefined;
  }
  return undefined;
}
