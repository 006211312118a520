import type { FoundTest, ScanContext } from '../../rules/types.ts';
import { withCases } from '../../rules/with-cases.ts';
import type { FileIndex } from '../files.ts';
import { fnmatchRegex } from '../patterns.ts';
import { countPyTests } from './cases.ts';
import type { PyCommand } from './commands.ts';
import { basename, dirname, joinPath } from '../../rules/paths.ts';

const VALID_MODULE_NAME = /^[_a-z]\w*\.py$/i;
// Options of `unittest` and of Django's `manage.py test` that take a value.
const WITH_VALUE = new Set(['-k', '-s', '-p', '-t', '--start-directory', '--pattern', '--top-level-directory', '--settings',
  '--pythonpath', '--testrunner', '--tag', '--exclude-tag', '-v', '--verbosity', '--durations', '--parallel']);

/**
 * Files `python -m unittest [discover ...]` (or Django's `manage.py test`) would load, from the declared
 * command's words, run in the command's directory. `discover` takes `-s/-p/-t` or positional
 * `start pattern top`; no args means `discover -s . -p test*.py`. Named modules (`tests.test_x.Case`, a
 * `.py` path) are taken literally. Django labels also discover in a named package or directory, with
 * `-p` (default `test*.py`). Discovery recurses only into directories holding `__init__.py` and loads
 * files whose basename is a valid module name matching the pattern.
 */
export async function discoverUnittest(ctx: ScanContext, index: FileIndex, command: PyCommand, pkg = ''): Promise<FoundTest[]> {
  const base = command.cwd ?? pkg;
  const args = command.args.filter((a) => !a.includes('{'));
  const picked = new Set<string>();
  const discover = args[0] === 'discover' || (!command.django && args.every((a) => a.startsWith('-')));
  let pattern = 'test*.py';
  const positional: string[] = [];
  let start: string | undefined;
  for (let i = args[0] === 'discover' ? 1 : 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = /^(--[\w-]+)=(.*)$/.exec(a);
    const flag = eq ? eq[1]! : a;
    if (!WITH_VALUE.has(flag)) { if (!a.startsWith('-')) positional.push(a); continue; }
    // `--parallel` takes an optional count; `-v` is a flag for unittest and `-v 2` for Django.
    if ((flag === '--parallel' || flag === '-v' || flag === '--verbosity') && !eq && !/^(?:\d+|auto)$/.test(args[i + 1] ?? '')) continue;
    const value = eq ? eq[2]! : args[++i] ?? '';
    if (flag === '-s' || flag === '--start-directory') start = value;
    else if (flag === '-p' || flag === '--pattern') pattern = value;
  }
  if (discover && positional[1] !== undefined) pattern = positional[1];
  const re = fnmatchRegex(pattern);
  const discoverIn = (startDir: string): void => { for (const file of discovered(ctx, index, startDir, re)) picked.add(file); };
  // Files a runner module names come with what its discovery (if any) finds.
  for (const f of command.files ?? []) picked.add(f);
  if (command.files !== undefined && args.length === 0) {
    // The runner module's own list is the whole suite.
  } else if (discover) {
    discoverIn(joinPath(base, positional[0] ?? start ?? '.'));
  } else if (command.django && positional.length === 0) {
    discoverIn(base);
  } else {
    for (const label of positional) {
      const asPath = joinPath(base, label);
      const asDir = label.endsWith('.py') ? undefined : index.dirs.has(asPath) ? asPath : index.dirs.has(joinPath(base, label.replace(/\./g, '/'))) ? joinPath(base, label.replace(/\./g, '/')) : undefined;
      // Django discovers inside a package or directory label; plain unittest loads only a module.
      if (asDir !== undefined && command.django) { discoverIn(asDir); continue; }
      // `tests.test_x.TestCase.test_y` names a module plus members: try shorter prefixes.
      const parts = label.replace(/\.py$/, '').split(/[./]/);
      for (let n = parts.length; n > 0; n--) {
        const candidate = n === parts.length && label.endsWith('.py') ? asPath : joinPath(base, parts.slice(0, n).join('/') + '.py');
        if (ctx.has(candidate)) { picked.add(candidate); break; }
      }
    }
  }
  ctx.follow({ package: pkg, command: command.text ?? null, runner: 'unittest', config: null,
    notes: command.django ? ['Django test runner: unittest discovery, pattern ' + pattern] : [] });
  return withCases(ctx, picked, 'unittest', countUnittest, { rowPerFile: true });
}

// Module-level: a scan process keeps a rowPerFile counter between scans (with-cases.ts), so it must not hold a scan.
const countUnittest = (text: string): number => countPyTests(text, 'unittest');

/**
 * The files unittest's discovery loads from `startDir`: valid module names matching `pattern`, in `startDir`
 * or in directories holding `__init__.py` at every level below it.
 */
function discovered(ctx: ScanContext, index: FileIndex, startDir: string, pattern: RegExp): string[] {
  // Perf: a directory's eligibility is memoized.
  const ok = new Map<string, boolean>();
  const allowed = (dir: string): boolean => {
    if (dir === startDir) return true;
    if (dir === '' || (startDir !== '' && !dir.startsWith(startDir + '/'))) return false;
    let v = ok.get(dir);
    if (v === undefined) ok.set(dir, v = ctx.has(dir + '/__init__.py') && allowed(dirname(dir)));
    return v;
  };
  return (index.byExt.get('py') ?? []).filter((file) => {
    const name = basename(file);
    return VALID_MODULE_NAME.test(name) && pattern.test(name) && allowed(dirname(file));
  });
}

/** Whether a bare `python -m unittest`, run in `base`, would load any file (its default `test*.py`). */
export function unittestDefaultsFind(ctx: ScanContext, index: FileIndex, base: string): boolean {
  return discovered(ctx, index, base, fnmatchRegex('test*.py')).length > 0;
}
