import type { FoundTest, ScanContext } from '../../scan/types.ts';
import { withCases } from '../../scan/with-cases.ts';
import type { FileIndex } from './files.ts';
import { fnmatchRegex } from './patterns.ts';
import { countPyTests } from './pycases.ts';
import type { PyCommand } from './pycommands.ts';
import { basename, dirname, joinPath } from '../../scan/paths.ts';

const VALID_MODULE_NAME = /^[_a-z]\w*\.py$/i;

/**
 * Files `python -m unittest [discover ...]` would load, from the declared command's words:
 * `discover` with `-s/--start-directory`, `-p/--pattern`, `-t` or the positional `start pattern top`;
 * no args means `discover -s . -p test*.py`. Dotted module names (`tests.test_x`) and file paths are
 * taken literally. Discovery recurses only into directories holding `__init__.py`, and loads files whose
 * basename is a valid module name and fnmatches the pattern.
 */
export async function discoverUnittest(ctx: ScanContext, index: FileIndex, command: PyCommand, base = ''): Promise<FoundTest[]> {
  const args = command.args.filter((a) => !a.includes('{'));
  const picked = new Set<string>();
  if (args.length === 0 || args[0] === 'discover' || args.every((a) => a.startsWith('-'))) {
    let start = '.';
    let pattern = 'test*.py';
    const positional: string[] = [];
    for (let i = args[0] === 'discover' ? 1 : 0; i < args.length; i++) {
      const a = args[i]!;
      const eq = /^(--[\w-]+)=(.*)$/.exec(a);
      const flag = eq ? eq[1]! : a;
      const value = (): string => eq ? eq[2]! : args[++i] ?? '';
      if (flag === '-s' || flag === '--start-directory') start = value();
      else if (flag === '-p' || flag === '--pattern') pattern = value();
      else if (flag === '-t' || flag === '--top-level-directory') value();
      else if (!a.startsWith('-')) positional.push(a);
    }
    if (positional[0] !== undefined) start = positional[0];
    if (positional[1] !== undefined) pattern = positional[1];
    const re = fnmatchRegex(pattern);
    const startDir = joinPath(base, start);
    // Perf: a directory's eligibility is memoized; it needs __init__.py at every level below the start dir.
    const ok = new Map<string, boolean>();
    const allowed = (dir: string): boolean => {
      if (dir === startDir) return true;
      if (dir === '' || (startDir !== '' && !dir.startsWith(startDir + '/'))) return false;
      let v = ok.get(dir);
      if (v === undefined) ok.set(dir, v = ctx.has(dir + '/__init__.py') && allowed(dirname(dir)));
      return v;
    };
    for (const file of index.byExt.get('py') ?? []) {
      const name = basename(file);
      if (VALID_MODULE_NAME.test(name) && re.test(name) && allowed(dirname(file))) picked.add(file);
    }
  } else {
    for (const a of args) {
      if (a.startsWith('-')) continue;
      const asPath = joinPath(base, a);
      // `tests.test_x.TestCase.test_y` names a module plus members: try shorter prefixes.
      const parts = a.replace(/\.py$/, '').split(/[./]/);
      for (let n = parts.length; n > 0; n--) {
        const candidate = n === parts.length && a.endsWith('.py') ? asPath : joinPath(base, parts.slice(0, n).join('/') + '.py');
        if (ctx.has(candidate)) { picked.add(candidate); break; }
      }
    }
  }
  return withCases(ctx, picked, 'unittest', (text) => countPyTests(text, 'unittest'));
}
