/**
 * An Nx target reached by a hand-off, turned into what reach.ts follows: the plan of its executor's
 * runner calls in the project, the plan of a `nx:run-commands` command in its `cwd`, or the
 * package.json script Nx would run (nx.ts says which).
 */

import { nxRun, type NxWorkspace } from './nx.ts';
import { planScript, type PlanOptions, type ScriptPlan } from '../scripts/script.ts';
import type { Pkg } from '../types.ts';

export interface NxPlanned { readonly pkg: Pkg; readonly plan: ScriptPlan }

/**
 * `script`: the project's package.json script of that name is the target; `undefined`: the project has
 * no such target (Nx skips it); else the runs to record.
 */
export async function planNxTarget(pkg: Pkg, target: string, ws: NxWorkspace, pkgs: readonly Pkg[],
  options: (pkg: Pkg) => PlanOptions): Promise<NxPlanned[] | 'script' | undefined> {
  const run = nxRun(pkg, target, ws);
  if (run === undefined || run.kind === 'script') return run === undefined ? undefined : 'script';
  const command = `nx run ${pkg.nx?.name ?? pkg.dir}:${target} (${run.executor})`;
  const base: ScriptPlan = { missing: false, command, invocations: [], delegations: [], dirs: [], unknown: [], followed: [], notes: [] };
  if (run.kind === 'unknown') return [{ pkg, plan: { ...base, unknown: [`the ${run.executor} executor`] } }];
  if (run.kind === 'runners') return [{ pkg, plan: { ...base, invocations: run.invocations, notes: run.notes } }];
  // nx:run-commands: the commands run in `cwd`, as a script of the package there (the root by default).
  // The package at `cwd`, else the deepest one holding it.
  const at = pkgs.filter((p) => p.dir === '' || run.dir === p.dir || run.dir.startsWith(p.dir + '/'))
    .sort((a, b) => b.dir.length - a.dir.length)[0];
  if (!at) return [{ pkg, plan: { ...base, unknown: [`${run.commands.join(' ; ')} in ${run.dir || 'the workspace root'}`] } }];
  const key = `nx:${target}`;
  const scripts = { ...(at.json.scripts as Record<string, unknown> | undefined), [key]: run.commands.join(' ; ') };
  const plan = await planScript(scripts, key, options(at));
  const notes = at.dir === run.dir ? run.notes : [...run.notes, `\`cwd\` ${run.dir} is not a package projdex knows; read from ${at.dir || 'the workspace root'}`];
  return [{ pkg: at, plan: { ...plan, command: `${command}: ${plan.command}`, notes: [...notes, ...plan.notes] } }];
}
