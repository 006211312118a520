import type { ScanContext } from '../rules/types.ts';
import { dirname } from '../rules/paths.ts';

/** One pass over the walked files, grouped the ways the runner rules look them up. */
export interface FileIndex {
  /** Basename -> every path with that basename (e.g. all `go.mod`, `Cargo.toml`). */
  readonly byName: ReadonlyMap<string, readonly string[]>;
  /** Extension without dot (`py`, `go`, `rs`, ...) -> paths, for the extensions the rules use. */
  readonly byExt: ReadonlyMap<string, readonly string[]>;
  /** Directories the walk entered. */
  readonly dirs: ReadonlySet<string>;
}

const WANTED_EXT = new Set(['py', 'txt', 'go', 'rs', 'rb', 'php', 'phpt', 'java', 'kt', 'groovy', 'exs', 'csproj', 'fsproj', 'vbproj', 'cs', 'fs', 'vb', 'swift']);
const WANTED_NAMES = new Set([
  'conftest.py', 'pyproject.toml', 'pytest.ini', '.pytest.ini', 'pytest.toml', '.pytest.toml', 'tox.ini', 'setup.cfg',
  'go.mod', 'Cargo.toml', '.rspec', 'Gemfile', 'Rakefile', 'phpunit.xml', 'phpunit.dist.xml', 'phpunit.xml.dist',
  'composer.json', 'pom.xml', 'build.gradle', 'build.gradle.kts', 'mix.exs', '__init__.py',
  'Package.swift', 'Directory.Build.props', 'Directory.Build.targets', 'Directory.Packages.props',
]);

/**
 * Builds the index in one iteration of `ctx.files`.
 *
 * @example
 * indexFiles(ctx).byName.get('go.mod'); // ['go.mod', 'tools/go.mod']
 */
export function indexFiles(ctx: ScanContext): FileIndex {
  // Perf: a rescan that keeps the last walk passes the very same arrays: its index is taken as it was.
  const known = ctx.perWalk('discover:file-index', (): { dirs?: readonly string[]; index?: FileIndex } => ({}));
  if (known.dirs !== ctx.dirs || !known.index) { known.index = build(ctx); known.dirs = ctx.dirs; }
  return known.index;
}

function build(ctx: ScanContext): FileIndex {
  const byName = new Map<string, readonly string[]>();
  const byExt = new Map<string, string[]>();
  // Perf: one pass over the distinct basenames of the shared index, not over every file.
  for (const [name, files] of ctx.names()) {
    if (WANTED_NAMES.has(name)) byName.set(name, files);
    const dot = name.lastIndexOf('.');
    if (dot > 0) {
      const ext = name.slice(dot + 1);
      if (WANTED_EXT.has(ext)) {
        const list = byExt.get(ext);
        if (list) for (const file of files) list.push(file); else byExt.set(ext, [...files]);
      }
    }
  }
  return { byName, byExt, dirs: new Set(ctx.dirs) };
}

/** Path of `file` relative to `dir` when it lies below it, else `undefined`. */
export function under(dir: string, file: string): string | undefined {
  if (dir === '') return file;
  return file.startsWith(dir + '/') ? file.slice(dir.length + 1) : undefined;
}

/** Nearest directory in `roots` that is `file`'s directory or one of its ancestors (walks up segments). */
export function nearest(roots: ReadonlySet<string>, file: string): string | undefined {
  let dir = dirname(file);
  for (;;) {
    if (roots.has(dir)) return dir;
    if (dir === '') return undefined;
    dir = dirname(dir);
  }
}

/** Number of matches of a global regex in `text`. */
export function countMatches(text: string, re: RegExp): number {
  let n = 0;
  re.lastIndex = 0;
  while (re.exec(text)) n++;
  return n;
}
