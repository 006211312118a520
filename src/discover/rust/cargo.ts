import type { FoundTest, ScanContext } from '../../rules/types.ts';
import { type FileIndex } from '../files.ts';
import { cargoRuns, selectFor, type CargoRun, type Pkg } from './runs.ts';
import { crateFiles } from './modules.ts';
import { parseToml, tomlGet, type TomlTable, type TomlValue } from '../../readers/toml.ts';
import { dirname, joinPath } from '../../rules/paths.ts';

interface Target { readonly root: string; readonly kind: 'unit' | 'integration'; readonly harness: boolean }

const BARE: Omit<CargoRun, 'dir'> = { workspace: false, packages: [], features: [], allFeatures: false, text: null };

/**
 * Files `cargo test` runs. The runs are the project's own (`cargo test`/`cargo nextest run` lines in CI,
 * Makefile, justfile: `-p`, `--workspace`, `--features`, `--all-features`, `--manifest-path`, `cd`), else
 * a bare `cargo test` in every outermost manifest directory. A bare run in a workspace root that is
 * itself a package tests that package alone; in a virtual root, `default-members` or every member.
 * Per package, the test targets (lib and bins unless `test = false`, `tests/*.rs`, `tests/*\/main.rs`
 * unless `autotests = false`, `[[test]]` entries) are followed through their `mod` declarations with
 * `cfg` evaluated (features: the defaults plus the run's). An integration target's root is listed
 * always (no case count under `harness = false`); other reached files when they hold test attributes.
 */
export async function discoverCargo(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  const manifests = index.byName.get('Cargo.toml') ?? [];
  if (manifests.length === 0) return [];
  const docs = new Map<string, TomlTable>();
  for (const m of manifests) {
    const text = await ctx.read(m);
    if (text !== undefined && !/(?:^|\/)target\//.test(m)) docs.set(dirname(m), parseToml(text));
  }
  let runs = await cargoRuns(ctx);
  let chosen = runs.flatMap((run) => selectFor(run, docs).map((pkg) => ({ pkg, run })));
  if (chosen.length === 0) {
    // Outermost manifests only: a Cargo.toml below another is a member (reached from its root) or a fixture.
    const tops = [...docs.keys()].filter((d) => ![...docs.keys()].some((o) => o !== d && (o === '' || d.startsWith(o + '/'))));
    runs = tops.map((dir) => ({ dir, ...BARE }));
    chosen = runs.flatMap((run) => selectFor(run, docs).map((pkg) => ({ pkg, run })));
  }
  // A package run by several commands gets the union of their features.
  const features = new Map<string, Set<string>>();
  const runOf = new Map<string, CargoRun>();
  for (const { pkg, run } of chosen) {
    const set = features.get(pkg.dir) ?? enabledFeatures(pkg.doc, [], false);
    for (const f of enabledFeatures(pkg.doc, run.features, run.allFeatures)) set.add(f);
    features.set(pkg.dir, set);
    if (!runOf.has(pkg.dir)) runOf.set(pkg.dir, run);
  }
  const found = new Map<string, FoundTest>();
  for (const [dir, set] of features) {
    const pkg = chosen.find((c) => c.pkg.dir === dir)!.pkg;
    const targets = targetsOf(ctx, index, pkg);
    const offFeatures = new Set<string>();
    for (const t of targets) {
      if (t.kind === 'integration' && !t.harness) { found.set(t.root, { file: t.root, framework: 'cargo' }); continue; }
      for (const f of await crateFiles(ctx, t.root, { features: set, offFeatures })) {
        if ((t.kind === 'integration' && f.file === t.root) || f.cases > 0) {
          const prev = found.get(f.file);
          if (!prev || (prev.cases ?? 0) < f.cases) found.set(f.file, { file: f.file, framework: 'cargo', cases: f.cases });
        }
      }
    }
    const run = runOf.get(dir)!;
    // What a condition would add: the run leaves these features off, and code behind them is not followed.
    const declared = new Set(Object.keys(table(tomlGet(pkg.doc, 'features')) ?? {}));
    const off = [...offFeatures].filter((f) => declared.has(f)).sort();
    if (off.length > 0) {
      ctx.note(`Cargo package \`${dir === '' ? '.' : dir}\`: modules behind the features ${off.slice(0, 12).map((f) => `\`${f}\``).join(', ')} are off in \`${run.text ?? 'cargo test'}\` and not followed; a run with \`--features\` would add the tests they hold`);
    }
    ctx.follow({ package: dir, command: run.text ?? 'cargo test', runner: 'cargo', config: joinPath(dir, 'Cargo.toml'),
      notes: set.size > 0 ? [`features on: ${[...set].sort().join(', ')}`] : [] });
  }
  return [...found.values()];
}

/** The package's test targets, as Cargo's target auto-discovery and explicit entries define them. */
function targetsOf(ctx: ScanContext, index: FileIndex, pkg: Pkg): Target[] {
  const at = (p: string): string => joinPath(pkg.dir, p);
  const out = new Map<string, Target>();
  const add = (root: string, kind: Target['kind'], entry?: TomlTable): void => {
    if (entry?.test === false) { out.delete(root); return; }
    if (ctx.has(root)) out.set(root, { root, kind, harness: entry?.harness !== false });
  };
  const lib = table(tomlGet(pkg.doc, 'lib'));
  add(at(typeof lib?.path === 'string' ? lib.path : 'src/lib.rs'), 'unit', lib);
  const name = tomlGet(pkg.doc, 'package.name');
  const autobins = tomlGet(pkg.doc, 'package.autobins') !== false;
  if (autobins) {
    add(at('src/main.rs'), 'unit');
    for (const f of index.byExt.get('rs') ?? []) {
      const prefix = at('src/bin') + '/';
      const rel = f.startsWith(prefix) ? f.slice(prefix.length) : undefined;
      if (rel !== undefined && (/^[^/]+\.rs$/.test(rel) || /^[^/]+\/main\.rs$/.test(rel))) add(f, 'unit');
    }
  }
  for (const bin of tables(tomlGet(pkg.doc, 'bin'))) {
    const path = typeof bin.path === 'string' ? at(bin.path) : bin.name === name ? at('src/main.rs')
      : ctx.has(at(`src/bin/${String(bin.name)}.rs`)) ? at(`src/bin/${String(bin.name)}.rs`) : at(`src/bin/${String(bin.name)}/main.rs`);
    add(path, 'unit', bin);
  }
  if (tomlGet(pkg.doc, 'package.autotests') !== false) {
    for (const f of index.byExt.get('rs') ?? []) {
      const prefix = at('tests') + '/';
      const rel = f.startsWith(prefix) ? f.slice(prefix.length) : undefined;
      if (rel !== undefined && (/^[^/]+\.rs$/.test(rel) || /^[^/]+\/main\.rs$/.test(rel))) add(f, 'integration');
    }
  }
  for (const t of tables(tomlGet(pkg.doc, 'test'))) {
    const n = String(t.name ?? '');
    const path = typeof t.path === 'string' ? at(t.path) : index.dirs.has(at(`tests/${n}`)) ? at(`tests/${n}/main.rs`) : at(`tests/${n}.rs`);
    add(path, 'integration', t);
  }
  return [...out.values()];
}

/** Features on in a run: `default` and what it enables (transitively), plus the run's own. */
function enabledFeatures(doc: TomlTable, extra: readonly string[], all: boolean): Set<string> {
  const table_ = table(tomlGet(doc, 'features')) ?? {};
  const on = new Set<string>();
  const enable = (f: string): void => {
    if (on.has(f) || f.includes('/') || f.startsWith('dep:')) return;
    on.add(f);
    const next = table_[f];
    if (Array.isArray(next)) for (const g of next) if (typeof g === 'string') enable(g.replace(/\?$/, ''));
  };
  // Optional dependencies are features of their own name too (`dep:` aside), enabled only by name.
  for (const f of ['default', ...extra, ...(all ? Object.keys(table_) : [])]) if (f in table_ || extra.includes(f)) enable(f);
  on.delete('default');
  return on;
}

function table(value: TomlValue | undefined): TomlTable | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

function tables(value: TomlValue | undefined): TomlTable[] {
  return Array.isArray(value) ? value.filter((v): v is TomlTable => !!v && typeof v === 'object' && !Array.isArray(v)) : [];
}
