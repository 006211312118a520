/**
 * A package of the project's own workspace named by a config's import but not installed (a fresh clone):
 * found by its package.json `name` among the walked package.json files, where installing would link it;
 * when its `exports`/`main` name a build output that is not there yet, the source its build compiles.
 */
import type { ScanContext } from '../../../rules/types.ts';
import { dirname } from '../../../rules/paths.ts';
import { CONDITIONS, EXTENSIONS, fromPackage, readFile, splitSpecifier, type ResolveOptions, type ResolvedFile } from './resolve.ts';

/** The file `spec` names in a workspace package; undefined when no walked package.json has that name. */
export async function resolveWorkspace(ctx: ScanContext, spec: string, options: ResolveOptions = {}): Promise<WorkspaceFile | undefined> {
  const parts = splitSpecifier(spec);
  if (!parts) return undefined;
  const dir = (await workspaceNames(ctx)).get(parts.name);
  if (dir === undefined) return undefined;
  const exts = options.extensions ?? EXTENSIONS;
  const built = await fromPackage(ctx, dir, parts.sub, exts, options.conditions ?? CONDITIONS);
  if (built) return { ...built, dir, fromSource: false };
  // Not built yet (a fresh clone): its exports name `./dist/x.js`, which a build makes from `./src/x.ts`.
  const source = await fromPackage(ctx, dir, parts.sub, exts, options.conditions ?? CONDITIONS, toSource);
  return source ? { ...source, dir, fromSource: true } : { path: '', text: '', dir, fromSource: false, missing: true };
}

/** A workspace package's file; `fromSource`: read from its sources as it is not built; `missing`: none found. */
export interface WorkspaceFile extends ResolvedFile { readonly dir: string; readonly fromSource: boolean; readonly missing?: boolean }

/**
 * `dist/x.js` -> `src/x.ts` (also `build/`, `lib/`, `out/`; `.mjs` -> `.mts`, or `.ts` as tsup/tsdown
 * build `.mjs` from; `.tsx`), the first that exists.
 */
async function toSource(ctx: ScanContext, path: string): Promise<ResolvedFile | undefined> {
  const m = /^(.*?\/)?(dist|build|lib|out)\/(.+?)\.([cm]?)js$/.exec(path);
  if (!m) return undefined;
  const stem = `${m[1] ?? ''}src/${m[3]}`;
  for (const ext of new Set([`.${m[4]}ts`, '.ts', '.tsx'])) {
    const hit = await readFile(ctx, stem + ext);
    if (hit) return hit;
  }
  return undefined;
}

/** Package name -> directory, over every walked package.json (built once per scan, on first need). */
function workspaceNames(ctx: ScanContext): Promise<Map<string, string>> {
  const found = ctx.shared('js:workspace-names', async () => {
    const out = new Map<string, string>();
    // In path order, not walk order: a name two package.json files claim (npm refuses that) resolves the
    // same whichever way the walk went (a rescan that listed a directory again walks it otherwise).
    const files = [...ctx.byName('package.json')].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const file of files) {
      const json = await ctx.readJson(file) as { name?: unknown } | undefined;
      if (json && typeof json.name === 'string' && !out.has(json.name)) out.set(json.name, dirname(file));
    }
    return out;
  });
  // Built from every package.json: a rule unit answered from this shared value depends on all of them.
  ctx.dependOn(ctx.byName('package.json'));
  return found;
}
