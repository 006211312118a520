import type { ScanContext } from '../../rules/types.ts';
import { ciLines } from '../ci-lines.ts';
import { followTasks, localTestCalls } from '../task-files.ts';
import { dirname, joinPath } from '../../rules/paths.ts';
import { under } from '../files.ts';
import { commandsFromLine, type PyCommand } from './words.ts';
import { readRunnerModule } from './runner-module.ts';

const MAKE_TARGETS = ['test', 'tests', 'check', 'unittest', 'unit'];

/**
 * The recipe of the first Makefile target among test/tests/check/unittest/unit that runs a Python test
 * runner, with the file's simple `NAME = value` (`?=`, `:=`) variables substituted.
 */
export async function makeCommands(ctx: ScanContext, base: string): Promise<PyCommand[]> {
  for (const name of ['GNUmakefile', 'makefile', 'Makefile']) {
    const file = joinPath(base, name);
    const text = await ctx.read(file);
    if (text === undefined) continue;
    const joined = text.replace(/\\\r?\n/g, ' ');
    const vars = new Map<string, string>();
    for (const m of joined.matchAll(/^([A-Za-z_]\w*)\s*[?:]?=[ \t]*(.*)$/gm)) if (!vars.has(m[1]!)) vars.set(m[1]!, m[2]!.trim());
    const expand = (line: string, depth = 0): string => depth > 4 ? line
      : line.replace(/\$[({](\w+)[)}]/g, (all, v: string) => (vars.has(v) ? expand(vars.get(v)!, depth + 1) : all));
    for (const target of MAKE_TARGETS) {
      const recipe = new RegExp(`^${target}\\s*:(?!=)[^\\n]*\\n((?:\\t[^\\n]*\\n?|#[^\\n]*\\n?)*)`, 'm').exec(joined);
      const lines = recipe?.[1]?.split('\n').map((l) => expand(l.replace(/^\t[@+-]*/, ''))) ?? [];
      const found = lines.flatMap((line) => commandsFromLine(line, file, { base }));
      if (found.length > 0) return found;
    }
    return [];
  }
  return [];
}

/**
 * Test runner lines of CI (GitHub Actions `run:` steps with their `working-directory` and `cd` lines,
 * GitLab CI `script:`, CircleCI `run:`; matrix values written in), with the make/just/task targets those
 * lines call followed to their recipes, kept when they run in `base` or below it.
 */
export async function ciCommands(ctx: ScanContext, base: string): Promise<PyCommand[]> {
  const out: PyCommand[] = [];
  for (const { line, dir, source } of await followTasks(ctx, await ciLines(ctx))) {
    if (under(base, dir) === undefined && dir !== base) continue;
    out.push(...commandsFromLine(line, source, { cwd: dir, base }));
  }
  return out.filter((c) => under(base, c.cwd ?? base) !== undefined || (c.cwd ?? base) === base);
}

/** The Python test lines of the justfile's and Taskfile's `test` recipes in `base`. */
export async function taskFileCommands(ctx: ScanContext, base: string): Promise<PyCommand[]> {
  const calls = localTestCalls(ctx, base).filter((c) => c.line !== 'make test');
  const out: PyCommand[] = [];
  for (const { line, dir, source } of await followTasks(ctx, calls)) out.push(...commandsFromLine(line, source, { cwd: dir, base }));
  return out;
}

/**
 * What a `runtests.py`-style script (or a runner module started as `python -m pkg.tests`) runs:
 * `pytest.main([...])` literal words, a unittest `discover('dir', pattern=...)`, Django's test runner
 * (discovery from the script's directory), the modules and doctests its suite names (runner-module.ts),
 * or `unittest.main()` in the script itself (the script is the test module). Anything else: undefined.
 */
export async function scriptCommand(ctx: ScanContext, base: string, cmd: PyCommand): Promise<PyCommand | undefined> {
  const cwd = cmd.cwd ?? base;
  // `python -m pkg.tests`: the package's `__main__.py`, else the module itself.
  const file = cmd.module === undefined ? joinPath(cwd, cmd.script!)
    : [`${cmd.module.replace(/\./g, '/')}/__main__.py`, `${cmd.module.replace(/\./g, '/')}.py`, `${cmd.module.replace(/\./g, '/')}/__init__.py`]
      .map((f) => joinPath(cwd, f)).find((f) => ctx.has(f));
  const text = file === undefined ? undefined : await ctx.read(file);
  if (file === undefined || text === undefined) return undefined;
  const rest = { source: file, ...(cmd.text === undefined ? {} : { text: cmd.text }), cwd: cmd.module === undefined ? dirname(file) : cwd };
  const listed = await readRunnerModule(ctx, file, rest.cwd);
  if (listed?.partial) ctx.note(`${file}: some of the modules its suite loads are computed; listed the ones named literally`);
  const named = listed ? { files: listed.files } : {};
  const words = (src: string): string[] => [...src.matchAll(/["']([^"'\n]*)["']/g)].map((m) => m[1]!);
  const pyMain = /\bpytest\.main\(\s*(\[[^\]]*\])?/.exec(text);
  if (pyMain) return { runner: 'pytest', args: [...words(pyMain[1] ?? ''), ...cmd.args], ...rest };
  const disc = /\.discover\(\s*(?:start_dir\s*=\s*)?["']([^"']+)["'](?:\s*,\s*(?:pattern\s*=\s*)?["']([^"']+)["'])?/.exec(text);
  if (disc) return { runner: 'unittest', args: ['discover', '-s', disc[1]!, ...(disc[2] ? ['-p', disc[2]] : [])], ...named, ...rest };
  if (/\bdjango\b/.test(text) && /get_runner|call_command\(\s*["']test|execute_from_command_line/.test(text)) {
    return { runner: 'unittest', args: cmd.args.filter((a) => !a.startsWith('-')), django: true, ...rest };
  }
  if (listed) return { runner: 'unittest', args: [], ...named, ...rest };
  if (/\bunittest\.main\(/.test(text)) return { runner: 'unittest', args: [file.replace(/^.*\//, '')], ...rest };
  return undefined;
}
