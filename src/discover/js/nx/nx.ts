/**
 * Nx workspaces (nx.json at the root): projects are the directories with a project.json (anywhere in
 * the tree) besides the package workspaces, and a target a hand-off names (`nx run-many -t test`,
 * `nx test app`, `nx run app:test`, `nx affected -t test`) is read as Nx would run it: the project's own
 * target (project.json `targets`, package.json `nx.targets`, with nx.json `targetDefaults` by target name
 * or executor), else a target inferred by a plugin of nx.json `plugins` from a config file in the
 * project (`@nx/jest/plugin`, `@nx/vite/plugin`, `@nx/vitest`, `@nx/playwright/plugin`,
 * `@nx/cypress/plugin`, with their target-name options and `include`/`exclude` globs), else the
 * package.json script of that name.
 */

import type { ScanContext } from '../../../rules/types.ts';
import { compileGlobs } from '../../../rules/glob.ts';
import { joinPath } from '../../../rules/paths.ts';
import type { Invocation, JsRunner, Pkg } from '../types.ts';

export interface NxProject { readonly name: string; readonly targets: Record<string, unknown>; readonly tags: readonly string[] }
interface Plugin { readonly name: string; readonly options: Record<string, unknown>; readonly include?: string[]; readonly exclude?: string[] }
export interface NxWorkspace {
  readonly plugins: readonly Plugin[];
  readonly targetDefaults: Record<string, unknown>;
  /** nx.json `defaultProject`: what `nx test` alone runs at the root. */
  readonly defaultProject: string | undefined;
}

/** What one Nx target runs: runner calls in the project, a shell command in a directory, or a script. */
export type NxRun =
  | { kind: 'runners'; executor: string; invocations: Invocation[]; notes: string[] }
  | { kind: 'commands'; executor: string; dir: string; commands: string[]; notes: string[] }
  | { kind: 'unknown'; executor: string }
  | { kind: 'script' };

// Inferring plugins: the target option that names the target, its default, the config files, the runner.
const INFERRING: Record<string, { option: string; default: string; config: RegExp; runner: JsRunner; args: string[] }> = {
  '@nx/jest/plugin': { option: 'targetName', default: 'test', config: /^jest\.config\.[cm]?[jt]s$/, runner: 'jest', args: [] },
  '@nx/vite/plugin': { option: 'testTargetName', default: 'test', config: /^vit(e|est)\.config\.[cm]?[jt]s$/, runner: 'vitest', args: ['run'] },
  '@nx/vitest': { option: 'testTargetName', default: 'test', config: /^vit(e|est)\.config\.[cm]?[jt]s$/, runner: 'vitest', args: ['run'] },
  '@nx/vitest/plugin': { option: 'testTargetName', default: 'test', config: /^vit(e|est)\.config\.[cm]?[jt]s$/, runner: 'vitest', args: ['run'] },
  '@nx/playwright/plugin': { option: 'targetName', default: 'e2e', config: /^playwright\.config\.[cm]?[jt]s$/, runner: 'playwright', args: [] },
  '@nx/cypress/plugin': { option: 'targetName', default: 'e2e', config: /^cypress\.config\.[cm]?[jt]s$/, runner: 'cypress', args: [] },
};

/** nx.json's plugins and targetDefaults, or undefined when the project is no Nx workspace. */
export async function readNxWorkspace(ctx: ScanContext): Promise<NxWorkspace | undefined> {
  if (!ctx.has('nx.json')) return undefined;
  const doc = object(await ctx.readJson('nx.json'));
  const plugins: Plugin[] = [];
  for (const p of Array.isArray(doc.plugins) ? doc.plugins : []) {
    if (typeof p === 'string') plugins.push({ name: p, options: {} });
    else if (p && typeof p === 'object' && typeof (p as { plugin?: unknown }).plugin === 'string') {
      const e = p as { plugin: string; options?: unknown; include?: unknown; exclude?: unknown };
      plugins.push({ name: e.plugin, options: object(e.options), include: strings(e.include), exclude: strings(e.exclude) });
    }
  }
  return { plugins, targetDefaults: object(doc.targetDefaults), defaultProject: typeof doc.defaultProject === 'string' ? doc.defaultProject : undefined };
}

/** Directories (project-relative) holding a project.json: Nx projects, wherever they are. */
export function nxProjectDirs(ctx: ScanContext): string[] {
  return ctx.files.filter((f) => f === 'project.json' || f.endsWith('/project.json')).map((f) => f.slice(0, -'project.json'.length).replace(/\/$/, ''));
}

/** A project's name and explicit targets, from its project.json and package.json (`nx` key). */
export async function readNxProject(ctx: ScanContext, dir: string, json: Record<string, unknown>): Promise<NxProject> {
  const pj = object(await ctx.readJson(joinPath(dir, 'project.json')));
  const fromPkg = object(object(json.nx).targets);
  const name = typeof pj.name === 'string' ? pj.name : typeof json.name === 'string' ? json.name : dir.split('/').pop() || 'root';
  const tags = strings(pj.tags) ?? strings(object(json.nx).tags) ?? [];
  return { name, targets: { ...fromPkg, ...object(pj.targets) }, tags };
}

/** How Nx runs `target` of the project `pkg`; `script` when only its package.json script can be it. */
export function nxRun(pkg: Pkg, target: string, ws: NxWorkspace): NxRun | undefined {
  const own = pkg.nx?.targets[target];
  const explicit = own === undefined ? undefined : object(own);
  const executorOf = (t: Record<string, unknown>): string | undefined => (typeof t.executor === 'string' ? t.executor : typeof t.command === 'string' ? 'nx:run-commands' : undefined);
  let executor = explicit && executorOf(explicit);
  const byName = object(ws.targetDefaults[target]);
  executor ??= explicit ? executorOf(byName) : undefined;
  if (explicit && executor) {
    const options = { ...object(object(ws.targetDefaults[executor]).options), ...object(byName.options), ...object(explicit.options) };
    if (typeof explicit.command === 'string') options.command = explicit.command;
    return fromExecutor(pkg, executor, options);
  }
  const inferred = inferredRun(pkg, target, ws);
  if (inferred) return inferred;
  if (typeof (pkg.json.scripts as Record<string, unknown> | undefined)?.[target] === 'string') return { kind: 'script' };
  return undefined;
}

function inferredRun(pkg: Pkg, target: string, ws: NxWorkspace): NxRun | undefined {
  for (const plugin of ws.plugins) {
    const rule = INFERRING[plugin.name];
    if (!rule || (plugin.options[rule.option] ?? rule.default) !== target) continue;
    const config = pkg.files.find((f) => !f.includes('/') && rule.config.test(f));
    if (!config) continue;
    const path = joinPath(pkg.dir, config);
    if (plugin.include && !compileGlobs(plugin.include).match(path)) continue;
    if (plugin.exclude && compileGlobs(plugin.exclude).match(path)) continue;
    return { kind: 'runners', executor: `${plugin.name} (inferred from ${config})`, invocations: [{ runner: rule.runner, args: rule.args, quoted: rule.args.map(() => false) }], notes: [] };
  }
  return undefined;
}

function fromExecutor(pkg: Pkg, executor: string, options: Record<string, unknown>): NxRun {
  const notes: string[] = [];
  const local = (key: string): string | undefined => {
    const v = options[key];
    if (typeof v !== 'string') return undefined;
    const full = joinPath(v.replace(/\{projectRoot\}/g, pkg.dir).replace(/\{workspaceRoot\}\/?/g, ''));
    const prefix = pkg.dir === '' ? '' : pkg.dir + '/';
    if (full.startsWith(prefix)) return full.slice(prefix.length);
    notes.push(`\`${key}\` ${v} is outside the project; its settings are not read`);
    return undefined;
  };
  const run = (runner: JsRunner, args: string[]): NxRun => ({ kind: 'runners', executor, invocations: [{ runner, args, quoted: args.map(() => false) }], notes });
  const withConfig = (flag: string, key: string, rest: string[] = []): string[] => { const c = local(key); return c ? [...rest, flag, c] : rest; };
  if (/^@(nx|nrwl)\/jest:jest$/.test(executor)) return run('jest', withConfig('--config', 'jestConfig'));
  if (executor === '@angular-devkit/build-angular:jest') {
    notes.push('the Angular Jest builder\'s `include`/`exclude` are not applied; Jest\'s defaults were used');
    return run('jest', []);
  }
  if (/^@(nx|nrwl)\/(vite:test|vitest:test|vitest)$/.test(executor)) return run('vitest', withConfig('--config', 'configFile', ['run']));
  if (/^@(nx|nrwl)\/playwright:playwright$/.test(executor)) return run('playwright', withConfig('--config', 'config'));
  if (/^@(nx|nrwl)\/cypress:cypress$/.test(executor)) return run('cypress', withConfig('--config-file', 'cypressConfig'));
  if (/^@angular-devkit\/build-angular:karma$|^@angular\/build:karma$/.test(executor)) {
    const args = [...strings(options.include)?.flatMap((g) => ['--include', g]) ?? [], ...strings(options.exclude)?.flatMap((g) => ['--exclude', g]) ?? []];
    return run('karma', args);
  }
  if (executor === 'nx:run-commands' || executor === '@nrwl/workspace:run-commands' || executor === '@nx/workspace:run-commands') {
    const list = typeof options.command === 'string' ? [options.command]
      : (Array.isArray(options.commands) ? options.commands : []).map((c) => (typeof c === 'string' ? c : object(c).command)).filter((c): c is string => typeof c === 'string');
    // run-commands runs in `cwd` (workspace-relative), the workspace root by default.
    const dir = typeof options.cwd === 'string' ? joinPath(options.cwd.replace(/\{projectRoot\}/g, pkg.dir).replace(/\{workspaceRoot\}\/?/g, '')) : '';
    return { kind: 'commands', executor, dir, commands: list, notes };
  }
  return { kind: 'unknown', executor };
}

function object(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : {};
}

function strings(v: unknown): string[] | undefined {
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}
