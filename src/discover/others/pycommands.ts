import { parseShell } from '../../readers/shell.ts';
import type { ScanContext } from '../../scan/types.ts';
import { parseIni } from '../../readers/ini.ts';
import { joinPath } from '../../scan/paths.ts';

/** A Python test runner invocation a project declares for itself. */
export interface PyCommand {
  readonly runner: 'pytest' | 'unittest';
  /** Arguments after the runner (`pytest tests -q` -> `['tests', '-q']`; `-m unittest discover -s t` -> `['discover', '-s', 't']`). */
  readonly args: readonly string[];
  /** Where it was declared, for notes. */
  readonly source: string;
}

/**
 * The test commands a Python project declares at its root: `tox.ini` `[testenv]` commands, the
 * Makefile `test:` recipe and `noxfile.py` `session.run(...)` calls (literal words only).
 *
 * @example
 * await declaredPyCommands(ctx); // [{ runner: 'unittest', args: ['discover', '-s', 'tests'], source: 'tox.ini' }]
 */
export async function declaredPyCommands(ctx: ScanContext, base = ''): Promise<PyCommand[]> {
  const out: PyCommand[] = [];
  const tox = await ctx.read(joinPath(base, 'tox.ini'));
  if (tox !== undefined) {
    const ini = parseIni(tox);
    const commands = ini.get('testenv')?.get('commands') ?? '';
    // tox joins lines ending in a backslash; each remaining line is one command.
    for (const line of commands.replace(/\\\n/g, ' ').split('\n')) out.push(...fromLine(line, joinPath(base, 'tox.ini')));
  }
  for (const name of ['Makefile', 'makefile', 'GNUmakefile']) {
    const make = await ctx.read(joinPath(base, name));
    if (make === undefined) continue;
    const recipe = /^test\s*:[^\n]*\n((?:\t[^\n]*\n?|#[^\n]*\n?)*)/m.exec(make.replace(/\\\n/g, ' '));
    for (const line of recipe?.[1]?.split('\n') ?? []) out.push(...fromLine(line.replace(/^\t[@-]*/, ''), joinPath(base, name)));
    break;
  }
  const nox = await ctx.read(joinPath(base, 'noxfile.py'));
  if (nox !== undefined) {
    for (const m of nox.matchAll(/session\.run\(([^)]*)\)/g)) {
      const words = [...m[1]!.matchAll(/["']([^"']*)["']/g)].map((w) => w[1]!);
      out.push(...fromWords(words, joinPath(base, 'noxfile.py')));
    }
  }
  return out;
}

function fromLine(line: string, source: string): PyCommand[] {
  return parseShell(line).flatMap((cmd) => fromWords(cmd.argv, source));
}

function fromWords(argv: readonly string[], source: string): PyCommand[] {
  let i = 0;
  // Skip wrappers: `coverage run -m`, `poetry run`, `uv run`, `pipenv run`, `python -m`.
  while (i < argv.length) {
    const w = argv[i]!;
    const base = w.slice(w.lastIndexOf('/') + 1);
    if (base === 'pytest' || base === 'py.test') return [{ runner: 'pytest', args: argv.slice(i + 1), source }];
    if (base === 'unittest' && i > 0 && argv[i - 1] === '-m') return [{ runner: 'unittest', args: argv.slice(i + 1), source }];
    // Django's runner is unittest discovery from the project dir (`test*.py`, packages only); labels
    // name modules, which the unittest rule reads as dotted names.
    if (base === 'manage.py' && argv[i + 1] === 'test') {
      const rest = argv.slice(i + 2);
      const labels = rest.filter((a, k) => !a.startsWith('-') && !/^(?:-p|--pattern|--settings|--parallel|-v|--verbosity)$/.test(rest[k - 1] ?? ''));
      const pattern = rest.find((a, k) => rest[k - 1] === '-p' || rest[k - 1] === '--pattern');
      return [{ runner: 'unittest', args: labels.length > 0 ? labels : ['discover', ...(pattern ? ['-p', pattern] : [])], source }];
    }
    if (/^python[\d.]*$/.test(base) || ['coverage', 'poetry', 'uv', 'pipenv', 'hatch', 'pdm', 'run', 'exec', 'env'].includes(base) || w.startsWith('-')) i++;
    else return [];
  }
  return [];
}
