import type { ScanContext } from '../../rules/types.ts';
import type { FileIndex } from '../files.ts';
import { basename } from '../../rules/paths.ts';

/** Which doctest files one pytest run collects. */
export interface DoctestOptions {
  /** `--doctest-modules`: every importable module is also a doctest module. */
  readonly modules: boolean;
  /** `--doctest-glob` matchers (fnmatch_ex); none means pytest's default `test*.txt`. */
  readonly globs: ReadonlyArray<(path: string) => boolean>;
  /** Files named on the command line: a `.txt`/`.rst` among them is a doctest file whatever its name. */
  readonly explicit: ReadonlySet<string>;
  /** Whether the run's directory walk reaches the file (start points, norecursedirs, ignores). */
  readonly collectable: (file: string) => boolean;
}

const DEFAULT_GLOB = /^test.*\.txt$/s;

/**
 * Candidate doctest files, as pytest's doctest plugin picks them (`pytest_collect_file`): text files
 * matching the globs (every run, default `test*.txt`), explicit `.txt`/`.rst` arguments, and with
 * `--doctest-modules` every `.py` file but `__main__.py` and a `setup.py` (pytest skips it when it names
 * setuptools/distutils; projdex skips it always). Whether they hold examples is counted later: a file
 * without a `>>>` line yields no test.
 */
export function doctestFiles(ctx: ScanContext, index: FileIndex, opts: DoctestOptions): string[] {
  const out: string[] = [];
  // Perf: only a custom glob needs every file; the default looks at `.txt` files alone.
  const texts = opts.globs.length > 0 ? ctx.files : index.byExt.get('txt') ?? [];
  for (const file of texts) {
    if (file.endsWith('.py')) continue;
    // Perf: the name is matched before the directories are walked up (most text files are not doctests).
    const named = opts.globs.length > 0 ? opts.globs.some((m) => m(file)) : DEFAULT_GLOB.test(basename(file));
    if (!named) continue;
    if (opts.collectable(file)) out.push(file);
  }
  for (const file of opts.explicit) if (/\.(?:txt|rst)$/.test(file) && !out.includes(file)) out.push(file);
  if (opts.modules) {
    for (const file of index.byExt.get('py') ?? []) {
      const name = basename(file);
      if (name !== '__main__.py' && name !== 'setup.py' && opts.collectable(file)) out.push(file);
    }
  }
  return out;
}

/**
 * Doctest examples in a text: each `>>> ` prompt line starts one example (`...` lines continue it).
 *
 * @example
 * countDoctests('"""\n>>> add(1, 2)\n3\n"""\n'); // 1
 */
export function countDoctests(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/^[ \t]*>>>(?:[ \t]|$)/gm)) if (m) n++;
  return n;
}
