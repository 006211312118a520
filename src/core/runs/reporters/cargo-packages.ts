/**
 * Where a cargo test binary's tests live. Cargo names each binary's source relative to its own package
 * (`Running unittests src/lib.rs (…/deps/fx-4a99…)`, also in a workspace), so the package is the one
 * holding that path; when several do, the binary's name (`fx`, the crate or target name) picks it.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { parseToml, tomlGet } from '../../../readers/toml.ts';
import type { ReportContext } from './reporter.ts';

/** A manifest over this size is not read for names (a hostile one cannot hold the server). */
const MAX_MANIFEST = 1024 * 1024;

export interface CargoPackage {
  readonly dir: string;
  /** The package's and its lib's names, `-` as `_` (the names cargo gives binaries). */
  readonly names: ReadonlySet<string>;
}

/** A section of cargo's output: the root file of the target whose tests follow, or why there is none. */
export interface CargoSection {
  /** Absolute root file of a unit or integration target. */
  readonly root?: string;
  /** Package directory of a doc-test section (doc tests are named after their file). */
  readonly docDir?: string;
  /** Why this section's tests cannot be placed. */
  readonly lost?: string;
}

/** The packages holding the step's known test files (the nearest manifest of each), and the step's own. */
export function cargoPackages(ctx: ReportContext): CargoPackage[] {
  const dirs = new Set<string>();
  const hasManifest = (dir: string): boolean => existsSync(`${dir}/Cargo.toml`);
  if (hasManifest(ctx.cwd)) dirs.add(ctx.cwd);
  for (const file of ctx.known) {
    for (let dir = dirname(file); dir.startsWith(ctx.cwd) && dir !== dirname(dir); dir = dirname(dir)) {
      if (hasManifest(dir)) { dirs.add(dir); break; }
    }
  }
  return [...dirs].map((dir) => ({ dir, names: namesOf(dir) }));
}

function namesOf(dir: string): Set<string> {
  const names = new Set<string>();
  try {
    if (statSync(`${dir}/Cargo.toml`).size > MAX_MANIFEST) return names;
    const doc = parseToml(readFileSync(`${dir}/Cargo.toml`, 'utf8'));
    for (const key of ['package.name', 'lib.name']) {
      const name = tomlGet(doc, key);
      if (typeof name === 'string') names.add(name.replaceAll('-', '_'));
    }
  } catch { /* unreadable: the package is told apart by its files only */ }
  return names;
}

/** The section a `Running [unittests ]PATH (BINARY)` banner opens. */
export function targetSection(path: string, binary: string, packages: readonly CargoPackage[]): CargoSection {
  const name = basename(binary).replace(/-[0-9a-f]+$/, '');
  const holding = packages.filter((p) => existsSync(`${p.dir}/${path}`));
  const named = holding.length > 1 ? holding.filter((p) => p.names.has(name)) : holding;
  if (named.length === 1) return { root: `${named[0]!.dir}/${path}` };
  return { lost: named.length === 0 ? `the tests of \`${path}\` (no package of this step holds it)`
    : `the tests of \`${path}\` (${named.length} packages hold a file of that name)` };
}

/** The section a `Doc-tests CRATE` banner opens. */
export function docSection(crate: string, packages: readonly CargoPackage[]): CargoSection {
  const named = packages.length === 1 ? packages : packages.filter((p) => p.names.has(crate));
  return named.length === 1 ? { docDir: named[0]!.dir } : { lost: `the doc tests of \`${crate}\`` };
}

/**
 * The file holding test `name` of the target rooted at `root`: the deepest module file its path names
 * that exists (`a::b::t`: `a/b.rs`, `a/b/mod.rs`, then `a.rs`, `a/mod.rs`), else the root itself.
 */
export function moduleFile(root: string, name: string): string {
  const modules = name.split('::').slice(0, -1);
  const stem = basename(root, '.rs');
  const base = ['lib', 'main', 'mod'].includes(stem) ? dirname(root) : `${dirname(root)}/${stem}`;
  for (let depth = modules.length; depth > 0; depth--) {
    const path = `${base}/${modules.slice(0, depth).join('/')}`;
    for (const candidate of [`${path}.rs`, `${path}/mod.rs`]) if (existsSync(candidate)) return candidate;
  }
  return root;
}
