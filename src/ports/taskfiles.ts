import type { ScanContext } from '../rules/types.ts';
import { parseYaml } from '../readers/yaml.ts';
import { dirname, joinPath } from '../rules/paths.ts';
import { isRecord, pick, type PortRow } from './common.ts';
import { linePorts, scriptsBeside } from './scripts.ts';

/**
 * Task runners' recipes, read with the same command rules as Makefile recipes and attributed to the task:
 * go-task's `Taskfile.yml` (`tasks.<name>.cmds`, a string or `{ cmd: ... }`; `{{.VAR}}` from the file's and
 * the task's `vars`; files named under `includes:` are read too, their tasks as `<namespace>:<task>`) and
 * `justfile` (recipe lines; `{{var}}` from `var := "value"` assignments).
 */
const MAX_FILES = 50;
const MAX_TEXT = 256 * 1024;
const TASKFILE = /^[Tt]askfile(?:\.dist)?\.ya?ml$/;
const JUSTFILE = /^\.?[Jj]ustfile$/;

export async function findTaskfilePorts(ctx: ScanContext): Promise<PortRow[]> {
  const files = pick(ctx, (b) => TASKFILE.test(b) || JUSTFILE.test(b)).slice(0, MAX_FILES);
  const perFile = await Promise.all(files.map(async (file) => {
    const text = (await ctx.read(file))?.slice(0, MAX_TEXT);
    if (text === undefined) return [];
    const options = await scriptsBeside(ctx, file);
    const just = JUSTFILE.test(file.slice(file.lastIndexOf('/') + 1));
    const recipes = just ? justRecipes(text) : await taskRecipes(ctx, file, text);
    return recipes.flatMap(([name, line]) => linePorts(ctx, line, name, file, options));
  }));
  return perFile.flat();
}

/** `[task, command line]` of a Taskfile and the taskfiles it includes (one level). */
async function taskRecipes(ctx: ScanContext, file: string, text: string): Promise<Array<[string, string]>> {
  const doc = safeYaml(text);
  const out = taskLines(doc, '');
  const includes = isRecord(doc) && isRecord(doc.includes) ? Object.entries(doc.includes).slice(0, 20) : [];
  for (const [namespace, spec] of includes) {
    const path = typeof spec === 'string' ? spec : isRecord(spec) ? spec.taskfile : undefined;
    if (typeof path !== 'string' || path.startsWith('/') || path.includes('{{') || path.includes('..')) continue;
    let target = joinPath(dirname(file), path);
    if (!/\.ya?ml$/.test(target)) target = joinPath(target, 'Taskfile.yml');
    const included = ctx.has(target) ? (await ctx.read(target))?.slice(0, MAX_TEXT) : undefined;
    if (included !== undefined) out.push(...taskLines(safeYaml(included), `${namespace}:`));
  }
  return out;
}

function safeYaml(text: string): unknown {
  try {
    return parseYaml(text);
  } catch {
    return undefined;
  }
}

/** The command lines of a parsed Taskfile's tasks, `{{.VAR}}` replaced from the file's and the task's `vars`. */
export function taskLines(doc: unknown, prefix: string): Array<[string, string]> {
  if (!isRecord(doc) || !isRecord(doc.tasks)) return [];
  const fileVars = vars(doc.vars);
  const out: Array<[string, string]> = [];
  for (const [name, task] of Object.entries(doc.tasks)) {
    const own = isRecord(task) ? new Map([...fileVars, ...vars(task.vars)]) : fileVars;
    const cmds: unknown[] = typeof task === 'string' ? [task] : !isRecord(task) ? [] : Array.isArray(task.cmds) ? task.cmds : [task.cmd];
    for (const cmd of cmds.slice(0, 50)) {
      const line = typeof cmd === 'string' ? cmd : isRecord(cmd) && typeof cmd.cmd === 'string' ? cmd.cmd : undefined;
      if (line === undefined) continue;
      out.push([`${prefix}${name}`, line.replace(/\{\{\s*\.(\w+)\s*\}\}/g, (whole, v: string) => own.get(v) ?? whole)]);
    }
  }
  return out;
}

/** A Taskfile's `vars:` with literal values (`PORT: 8080`, `PORT: { sh: ... }` is skipped). */
function vars(value: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!isRecord(value)) return out;
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string' || typeof v === 'number') out.set(k, String(v));
  return out;
}

/** `[recipe, line]` of a justfile: indented lines under `name args:`, `{{var}}` from `var := "value"`. */
export function justRecipes(text: string): Array<[string, string]> {
  const assigned = new Map<string, string>();
  for (const m of text.matchAll(/^(?:export\s+)?([A-Za-z_][\w-]*)\s*:=\s*(?:"([^"\n]*)"|'([^'\n]*)'|(\d+))/gm)) {
    assigned.set(m[1]!, m[2] ?? m[3] ?? m[4]!);
  }
  const out: Array<[string, string]> = [];
  let recipe: string | undefined;
  for (const raw of text.split('\n')) {
    if (/^\S/.test(raw)) {
      // `name param="x":` opens a recipe; `name := value` is an assignment.
      const head = /^@?([A-Za-z_][\w-]*)(?:\s[^:]*)?:(?!=)/.exec(raw);
      recipe = head && !/^(?:export\s+)?[\w-]+\s*:=/.test(raw) ? head[1] : undefined;
      continue;
    }
    const line = raw.trim().replace(/^[@-]+/, '');
    if (recipe === undefined || line === '' || line.startsWith('#')) continue;
    out.push([recipe, line.replace(/\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g, (whole, v: string) => assigned.get(v) ?? whole)]);
  }
  return out;
}
