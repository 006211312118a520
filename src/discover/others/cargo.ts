import type { FoundTest, ScanContext } from '../../scan/types.ts';
import { withCases } from '../../scan/with-cases.ts';
import { nearest, under, type FileIndex } from './files.ts';
import { rubyGlobRegex } from './patterns.ts';
import { parseToml, tomlGet, tomlStrings, type TomlTable, type TomlValue } from '../../readers/toml.ts';
import { dirname, joinPath } from '../../scan/paths.ts';

// `#[test]`, `#[tokio::test]`, `#[tokio::test(flavor = ...)]`, `#[async_std::test]`, `#[rstest]`, `#[test_case(...)]`.
const TEST_ATTR = /^\s*#\[\s*(?:(?:[\w]+::)*test\s*(?:\]|\()|rstest\s*(?:\]|\()|test_case\s*\()/gm;

interface Pkg { readonly dir: string; readonly doc: TomlTable }

/**
 * Files `cargo test` runs, per package: the root package, every member of a `[workspace]` (members
 * globs minus `exclude`), and packages with no enclosing workspace or package. Per package:
 * integration tests `tests/*.rs` and `tests/*\/main.rs` unless `autotests = false`, plus `[[test]]`
 * paths (minus `test = false` ones), and unit tests: `.rs` files under `src/` that declare a test
 * attribute, when the lib/bins are tested (`[lib] test = false` drops the lib's). Module trees are not
 * resolved: a file under src/ that no crate root includes is still listed (an estimate).
 */
export async function discoverCargo(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  const manifests = index.byName.get('Cargo.toml') ?? [];
  if (manifests.length === 0) return [];
  const docs = new Map<string, TomlTable>();
  await Promise.all(manifests.map(async (m) => {
    const text = await ctx.read(m);
    if (text !== undefined) docs.set(dirname(m), parseToml(text));
  }));
  const packages = selectPackages(docs);
  const pkgDirs = new Set(packages.map((p) => p.dir));
  const allDirs = new Set(docs.keys());
  const byPkg = new Map(packages.map((p) => [p.dir, p]));

  const integration: string[] = [];
  const unit: string[] = [];
  const explicit = new Map<string, Set<string>>();
  const disabled = new Set<string>();
  for (const pkg of packages) {
    const set = new Set<string>();
    for (const t of tables(tomlGet(pkg.doc, 'test'))) {
      const name = typeof t.name === 'string' ? t.name : undefined;
      const path = typeof t.path === 'string' ? t.path
        : name === undefined ? undefined
          : index.dirs.has(joinPath(pkg.dir, 'tests/' + name)) ? `tests/${name}/main.rs` : `tests/${name}.rs`;
      if (path === undefined) continue;
      (t.test === false ? disabled : set).add(joinPath(pkg.dir, path));
    }
    explicit.set(pkg.dir, set);
    for (const file of set) if (!disabled.has(file)) integration.push(file);
  }

  for (const file of index.byExt.get('rs') ?? []) {
    // The owning manifest is the nearest Cargo.toml, listed or not: a fixture crate inside a package is its own.
    const owner = nearest(allDirs, file);
    if (owner === undefined || !pkgDirs.has(owner)) continue;
    const pkg = byPkg.get(owner)!;
    const rel = under(owner, file)!;
    if (/^tests\/[^/]+\.rs$/.test(rel) || /^tests\/[^/]+\/main\.rs$/.test(rel)) {
      if (tomlGet(pkg.doc, 'package.autotests') !== false && !explicit.get(owner)!.has(file) && !disabled.has(file)) integration.push(file);
    } else if (rel.startsWith('src/')) {
      const libOff = tomlGet(pkg.doc, 'lib.test') === false;
      const inBin = rel === 'src/main.rs' || rel.startsWith('src/bin/');
      if (!(libOff && !inBin)) unit.push(file);
    } else if (!/^(?:tests|benches|examples)\//.test(rel) && rel !== 'build.rs' && customRootDirs(pkg).some((d) => d === '' || rel.startsWith(d + '/'))) {
      // A `[lib]`/`[[bin]]` `path` outside src/: its directory holds that crate's modules.
      unit.push(file);
    }
  }

  const count = (text: string): number => (text.match(TEST_ATTR) ?? []).length;
  const [a, b] = await Promise.all([withCases(ctx, integration, 'cargo', count), withCases(ctx, unit, 'cargo', count)]);
  return [...a, ...b.filter((t) => (t.cases ?? 0) > 0)];
}

function selectPackages(docs: ReadonlyMap<string, TomlTable>): Pkg[] {
  const out: Pkg[] = [];
  const workspaces = [...docs].filter(([, doc]) => tomlGet(doc, 'workspace') !== undefined);
  for (const [dir, doc] of docs) {
    if (tomlGet(doc, 'package') === undefined) continue;
    // Nearest workspace root at or above this package decides membership.
    const ws = workspaces.filter(([w]) => w === dir || w === '' || dir.startsWith(w + '/')).sort((x, y) => y[0].length - x[0].length)[0];
    if (ws) {
      const [wdir, wdoc] = ws;
      if (wdir === dir) {
        // Its own workspace root, unless an enclosing workspace names it in `exclude` (a vendored or legacy crate).
        const outer = workspaces.some(([w, d]) => w !== dir && (w === '' || dir.startsWith(w + '/'))
          && (tomlStrings(tomlGet(d, 'workspace.exclude')) ?? []).some((e) => { const x = joinPath(w, e); return dir === x || dir.startsWith(x + '/'); }));
        if (!outer) out.push({ dir, doc });
        continue;
      }
      const rel = dir.slice(wdir === '' ? 0 : wdir.length + 1);
      const members = (tomlStrings(tomlGet(wdoc, 'workspace.members')) ?? []).map((m) => rubyGlobRegex(joinPath('', m)));
      const excluded = (tomlStrings(tomlGet(wdoc, 'workspace.exclude')) ?? []).map((m) => joinPath('', m));
      if (members.some((re) => re.test(rel)) && !excluded.some((e) => rel === e || rel.startsWith(e + '/'))) out.push({ dir, doc });
      continue;
    }
    // No workspace: a package nested inside another package's directory is a fixture or a path dependency.
    const inside = [...docs.keys()].some((d) => d !== dir && (d === '' || dir.startsWith(d + '/')) && tomlGet(docs.get(d)!, 'package') !== undefined);
    if (!inside) out.push({ dir, doc });
  }
  return out;
}

/** Directories (package-relative) of `[lib] path` and `[[bin]] path` entries that lie outside `src/`. */
function customRootDirs(pkg: Pkg): string[] {
  const paths = [tomlGet(pkg.doc, 'lib.path'), ...tables(tomlGet(pkg.doc, 'bin')).map((b) => b.path)];
  return paths.filter((p): p is string => typeof p === 'string').map((p) => dirname(joinPath('', p))).filter((d) => d !== 'src' && !d.startsWith('src/'));
}

function tables(value: TomlValue | undefined): TomlTable[] {
  return Array.isArray(value) ? value.filter((v): v is TomlTable => !!v && typeof v === 'object' && !Array.isArray(v)) : [];
}

