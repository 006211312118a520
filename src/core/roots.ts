import { promises as fsp } from 'node:fs';
import { join } from 'node:path';

/**
 * A file or folder whose presence makes a directory a project root: a repository, or the manifest of an
 * ecosystem the scanner reads (a Python project without pyproject.toml, a Ruby, PHP, Elixir, JVM, .NET
 * or Deno one), so a folder of such projects is not registered as nothing.
 */
const MARKERS = new Set(['.git', 'package.json', 'pyproject.toml', 'go.mod', 'Cargo.toml', 'requirements.txt',
  'setup.py', 'setup.cfg', 'Pipfile', 'Gemfile', 'composer.json', 'mix.exs', 'pom.xml', 'build.gradle',
  'build.gradle.kts', 'deno.json', 'deno.jsonc']);
/** Markers named by their extension: a .NET project or solution file. */
const MARKER_EXTENSIONS = ['.csproj', '.fsproj', '.vbproj', '.sln'];

const isMarker = (name: string): boolean => MARKERS.has(name) || MARKER_EXTENSIONS.some((ext) => name.endsWith(ext));

/** Folders that hold installs, builds or caches: never a project of the user's own. */
const SKIP = new Set(['node_modules', 'bower_components', 'vendor', 'venv', '.venv', 'env', 'site-packages',
  '__pycache__', 'dist', 'build', 'target', 'out', '.next', '.nuxt', '.cache', '.tox', '.gradle', 'Pods', '.git']);

/** Levels below a folder that `add --all` (and the dashboard's "Add all") look in by default, and at most. */
export const DISCOVER_DEPTH = { default: 4, max: 16 } as const;

export interface FindRootsOptions {
  /** Levels below `root` to look in (0: `root` only). @default 4 */
  readonly maxDepth?: number;
  /** Directories read at most: a folder of folders cannot keep the walk going. @default 20_000 */
  readonly maxDirs?: number;
}

/**
 * Project roots under `root`: directories holding a git repository or a package manifest (MARKERS).
 * A root's own subfolders are not searched (a monorepo is one project; its packages are scanned as part of it);
 * hidden folders, installs and build output are skipped; symlinks are not followed. Sorted by path.
 *
 * @example
 * await findRoots('/home/me/code', { maxDepth: 2 }); // ['/home/me/code/api', '/home/me/code/web']
 */
export async function findRoots(root: string, { maxDepth = 4, maxDirs = 20_000 }: FindRootsOptions = {}): Promise<{ roots: string[]; truncated: boolean }> {
  const roots: string[] = [];
  let budget = maxDirs;
  let truncated = false;
  let level = [root];
  for (let depth = 0; depth <= maxDepth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      if (budget-- <= 0) {
        truncated = true;
        break;
      }
      const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
      if (entries.some((e) => isMarker(e.name) && (e.isFile() || e.isDirectory()))) {
        roots.push(dir);
        continue;
      }
      for (const e of entries) {
        if (e.isDirectory() && !e.name.startsWith('.') && !SKIP.has(e.name)) next.push(join(dir, e.name));
      }
    }
    if (truncated) break;
    level = next;
  }
  return { roots: roots.sort(), truncated };
}
