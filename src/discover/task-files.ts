import type { ScanContext } from '../rules/types.ts';
import { parseShell } from '../readers/shell/parse.ts';
import { readMakefile } from '../readers/makefile.ts';
import { parseYaml } from '../readers/yaml.ts';
import { joinPath } from '../rules/paths.ts';
import type { CommandLine } from './ci-lines.ts';

/**
 * Lines with the task runner calls in them followed: `make T` (`-C dir`, `NAME=value` overrides written
 * into the recipe), `just T` and `task T` (go-task's Taskfile.yml) are answered with the recipe lines of
 * the targets they name (no name: the default target), their prerequisites' recipes first, and the recipes
 * of the calls those lines make in turn, a few levels deep. Each line keeps where it runs; a recipe line
 * names its file as its source. The lines given are kept too, in front of what they lead to.
 */

const MAX_DEPTH = 4;
const MAX_OUT = 1024;
const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];
const JUSTFILES = ['justfile', 'Justfile', '.justfile'];
const TASKFILES = ['Taskfile.yml', 'taskfile.yml', 'Taskfile.yaml', 'taskfile.yaml', 'Taskfile.dist.yml'];

type Read = (file: string) => Promise<string | undefined>;
type Recipes = (read: Read, dir: string, targets: readonly string[]) => Promise<{ file: string; lines: string[] } | undefined>;

/**
 * @example
 * await followTasks(ctx, [{ line: 'make test', dir: '', source: '.github/workflows/ci.yml' }]);
 * // [{ line: 'make test', ... }, { line: 'go test -tags integration ./...', dir: '', source: 'Makefile' }]
 */
export async function followTasks(ctx: ScanContext, lines: readonly CommandLine[]): Promise<CommandLine[]> {
  const out: CommandLine[] = [];
  const visit = async (entry: CommandLine, depth: number): Promise<void> => {
    if (out.length >= MAX_OUT) return;
    out.push(entry);
    if (depth >= MAX_DEPTH) return;
    for (const { argv } of parseShell(entry.line)) {
      const call = taskCall(argv, entry.dir);
      if (!call) continue;
      const found = await call.recipes((f) => ctx.read(f), call.dir, call.targets);
      if (!found) continue;
      for (const line of found.lines) {
        const written = call.overrides.reduce((l, [name, value]) => l.replace(new RegExp(`\\$[({]${name}[)}]`, 'g'), () => value), line);
        await visit({ line: written, dir: call.dir, source: found.file }, depth + 1);
      }
    }
  };
  for (const entry of lines) await visit(entry, 0);
  return out;
}

/** The conventional local test commands (`make test`, `just test`, `task test`) the files in `dir` define. */
export function localTestCalls(ctx: ScanContext, dir = ''): CommandLine[] {
  const out: CommandLine[] = [];
  const at = (names: readonly string[]): string | undefined => names.map((f) => joinPath(dir, f)).find((f) => ctx.has(f));
  for (const [names, line] of [[MAKEFILES, 'make test'], [JUSTFILES, 'just test'], [TASKFILES, 'task test']] as const) {
    const source = at(names);
    if (source !== undefined) out.push({ line, dir, source });
  }
  return out;
}

/**
 * The recipe lines one `just T` or `task T` call runs (`make` aside: a package's scripts follow Makefiles
 * as shell programs of their own), with the file they come from and the directory they run in; `missing`
 * says what was not found (the file, or a recipe in it); undefined when the call is not one.
 *
 * @example
 * await taskRunnerLines(read, ['just', 'test'], ''); // { file: 'justfile', dir: '', lines: ['npx vitest run'] }
 */
export async function taskRunnerLines(read: Read, argv: readonly string[], dir: string): Promise<
  { file: string; dir: string; lines: string[] } | { missing: 'file' | 'recipe' } | undefined
> {
  const call = taskCall(argv, dir);
  if (!call || call.recipes === makeRecipes) return undefined;
  const found = await call.recipes(read, call.dir, call.targets);
  if (!found) return { missing: 'file' };
  return found.lines.length > 0 ? { file: found.file, dir: call.dir, lines: found.lines } : { missing: 'recipe' };
}

interface Call { readonly recipes: Recipes; readonly dir: string; readonly targets: string[]; readonly overrides: Array<[string, string]> }

function taskCall(argv: readonly string[], dir: string): Call | undefined {
  const word = argv[0]?.replace(/^.*\//, '');
  const recipes = word === 'make' || word === 'gmake' ? makeRecipes : word === 'just' ? justRecipes
    : word === 'task' || word === 'go-task' ? taskRecipes : undefined;
  if (!recipes) return undefined;
  let at = dir;
  const targets: string[] = [];
  const overrides: Array<[string, string]> = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (recipes === makeRecipes && (a === '-C' || a === '--directory')) { at = joinPath(at, argv[++i] ?? ''); continue; }
    if (/^-C./.test(a) && recipes === makeRecipes) { at = joinPath(at, a.slice(2)); continue; }
    if (a === '-d' && recipes === taskRecipes) { at = joinPath(at, argv[++i] ?? ''); continue; }
    if (a === '--') break;
    if (a.startsWith('-')) continue;
    const assign = /^([A-Za-z_]\w*)=(.*)$/.exec(a);
    if (assign) overrides.push([assign[1]!, assign[2]!]);
    else if (/^[\w.:/-]+$/.test(a)) targets.push(a);
    // just passes the words after a recipe's parameters to it; only the first name is a recipe for sure.
    if (recipes === justRecipes && targets.length > 0) break;
  }
  return { recipes, dir: at, targets, overrides };
}

const makeRecipes: Recipes = async (read, dir, targets) => {
  const found = await firstFile(read, dir, MAKEFILES);
  if (!found) return undefined;
  const rules = readMakefile(found.text);
  const byName = new Map(rules.map((r) => [r.target, { deps: r.prereqs, body: r.recipe }]));
  const wanted = targets.length > 0 ? targets : rules.slice(0, 1).map((r) => r.target);
  return { file: found.file, lines: bodiesInOrder(byName, wanted) };
};

const justRecipes: Recipes = async (read, dir, targets) => {
  const found = await firstFile(read, dir, JUSTFILES);
  if (!found) return undefined;
  const { file, text } = found;
  const vars = new Map<string, string>();
  const recipes = new Map<string, { deps: string[]; body: string[] }>();
  let current: { deps: string[]; body: string[] } | undefined;
  let first: string | undefined;
  for (const raw of text.replace(/\\\r?\n\s*/g, ' ').split('\n')) {
    if (/^\s+\S/.test(raw)) { if (current) current.body.push(raw.trim().replace(/^[@-]+/, '')); continue; }
    const line = raw.replace(/\s#.*$/, '').trimEnd();
    const variable = /^(?:export\s+)?([A-Za-z_][\w-]*)\s*:=\s*(['"])(.*)\2\s*$/.exec(line);
    if (variable) { vars.set(variable[1]!, variable[3]!); current = undefined; continue; }
    const head = /^@?([A-Za-z_][\w-]*)(?:\s+[^:]*?)?\s*:(?!=)(.*)$/.exec(line);
    if (head && !line.startsWith('[') && !/^(?:set|alias|import|mod)\b/.test(line)) {
      // `test: lint (build "x")`: a parenthesised dependency is its first word.
      const deps = head[2]!.replace(/\([^)]*\)/g, (m) => m.slice(1, -1).split(/\s+/)[0]!);
      current = { deps: [...deps.matchAll(/[A-Za-z_][\w-]*/g)].map((m) => m[0]), body: [] };
      recipes.set(head[1]!, current);
      first ??= head[1]!;
      continue;
    }
    const alias = /^alias\s+([\w-]+)\s*:=\s*([\w-]+)/.exec(line);
    if (alias) recipes.set(alias[1]!, recipes.get(alias[2]!) ?? { deps: [alias[2]!], body: [] });
    if (line !== '') current = undefined;
  }
  const wanted = targets.length > 0 ? targets : recipes.has('default') ? ['default'] : first ? [first] : [];
  // `{{ name }}` is the recipe's variable when the file sets it to a literal; other expressions stay.
  const lines = bodiesInOrder(recipes, wanted)
    .map((l) => l.replace(/\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g, (m, v: string) => vars.get(v) ?? m));
  return { file, lines };
};

const taskRecipes: Recipes = async (read, dir, targets) => {
  const found = await firstFile(read, dir, TASKFILES);
  if (!found) return undefined;
  const { file, text } = found;
  const doc = parseYaml(text);
  const tasks = isObject(doc) && isObject(doc.tasks) ? doc.tasks : {};
  const vars = new Map<string, string>();
  if (isObject(doc) && isObject(doc.vars)) for (const [k, v] of Object.entries(doc.vars)) if (typeof v === 'string') vars.set(k, v);
  const byAlias = new Map<string, string>();
  for (const [k, t] of Object.entries(tasks)) {
    if (isObject(t) && Array.isArray(t.aliases)) for (const a of t.aliases) if (typeof a === 'string') byAlias.set(a, k);
  }
  const lines: string[] = [];
  const seen = new Set<string>();
  const add = (target: string, depth: number): void => {
    const key = target in tasks ? target : byAlias.get(target) ?? target;
    const task = tasks[key];
    if (seen.has(key) || depth > MAX_DEPTH || task === undefined) return;
    seen.add(key);
    // `test: go test ./...` and `test: [cmd, ...]` are the short forms of a task's cmds.
    const body = typeof task === 'string' || Array.isArray(task) ? { cmds: task } : isObject(task) ? task : {};
    for (const d of Array.isArray(body.deps) ? body.deps : []) {
      const dep = typeof d === 'string' ? d : isObject(d) && typeof d.task === 'string' ? d.task : undefined;
      if (dep) add(dep, depth + 1);
    }
    const cmds = typeof body.cmds === 'string' ? [body.cmds] : Array.isArray(body.cmds) ? body.cmds : [];
    for (const c of cmds) {
      if (isObject(c) && typeof c.task === 'string') { add(c.task, depth + 1); continue; }
      const line = typeof c === 'string' ? c : isObject(c) && typeof c.cmd === 'string' ? c.cmd : undefined;
      // `{{.NAME}}` is a top-level var set to a literal; `{{.CLI_ARGS}}` is empty in a plain call.
      if (line) lines.push(line.replace(/\{\{\s*\.(\w+)\s*\}\}/g, (m, v: string) => (v === 'CLI_ARGS' ? '' : vars.get(v) ?? m)));
    }
  };
  for (const t of targets.length > 0 ? targets : ['default']) add(t, 0);
  return { file, lines };
};

/** The first of `names` in `dir` that can be read, with its text. */
async function firstFile(
  read: Read, dir: string, names: readonly string[],
): Promise<{ file: string; text: string } | undefined> {
  for (const name of names) {
    const file = joinPath(dir, name);
    const text = await read(file);
    if (text !== undefined) return { file, text };
  }
  return undefined;
}

/**
 * The body lines `targets` run, each target's dependencies first, each target once, at most
 * {@link MAX_DEPTH} dependencies deep (make's prerequisites, just's dependencies).
 */
function bodiesInOrder(
  byName: ReadonlyMap<string, { readonly deps: readonly string[]; readonly body: readonly string[] }>,
  targets: readonly string[],
): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  const add = (target: string, depth: number): void => {
    const entry = byName.get(target);
    if (!entry || seen.has(target) || depth > MAX_DEPTH) return;
    seen.add(target);
    for (const dep of entry.deps) add(dep, depth + 1);
    lines.push(...entry.body);
  };
  for (const target of targets) add(target, 0);
  return lines;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
