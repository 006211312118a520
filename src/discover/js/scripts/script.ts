import { readProgram, type ProgramOptions } from '../../../readers/shell/program.ts';
import { joinDir } from '../../../readers/shell/words.ts';
import { globToRegExp } from '../../../rules/glob.ts';
import { classify } from './commands.ts';
import { makeTexts, scriptFileText, type FileReader } from './script-files.ts';
import { nodeScriptCommands } from './node-script.ts';
import { isShelljsMake, makeJsCommands } from './make-js.ts';
import type { Invocation } from '../types.ts';
import { taskRunnerLines } from '../../task-files.ts';

/** Workspace packages a command hands a script to: `filters` null means every package. */
export interface Delegation { readonly tool: string; readonly scripts: readonly string[]; readonly filters: readonly string[] | null }

/** What a package's script reaches. */
export interface ScriptPlan {
  /** The script is missing or the `npm init` placeholder. */
  readonly missing: boolean;
  /** The script's own text (with any arguments passed to it), for the scan's `runs`. */
  readonly command: string | null;
  /** Runner calls, in the order the program reaches them. */
  readonly invocations: Invocation[];
  /** Hand-offs to workspace packages (`turbo run test`, `pnpm -r test`, ...). */
  readonly delegations: Delegation[];
  /** `cd packages/a && npm test`: a package directory (relative to this one) and the script run there. */
  readonly dirs: Array<{ readonly dir: string; readonly script: string }>;
  /** Commands that name nothing projdex knows, or files it could not follow (`node scripts/x.js`, `./ci.sh`). */
  readonly unknown: string[];
  /** Shell script files and Makefiles followed (package-relative), for the scan's notes. */
  readonly followed: string[];
  /** Branches taken, conditions assumed, limits hit. */
  readonly notes: string[];
}

export interface PlanOptions extends ProgramOptions {
  /** Reads a package-relative file (shell scripts, Makefiles); without it such commands stay unknown. */
  readonly read?: FileReader;
  /** package.json `wireit`: what a script whose text is `wireit` runs. */
  readonly wireit?: unknown;
  /**
   * A script name with `*` names every script it matches (`npm run test-e2e-*`, read from a CI line whose
   * workflow expression chose the script); npm itself has no such globs, so only stand-ins ask for it.
   */
  readonly globScripts?: boolean;
}

const PLACEHOLDER = /no test specified/;
const MAX_SCRIPTS = 64;
/** Script files and Makefile targets followed per plan, and how deep files may call files. */
const MAX_FILES = 24;
const MAX_FILE_DEPTH = 4;

/** Whether a package's script is absent or the `npm init` placeholder. */
export function scriptMissing(scripts: Record<string, unknown> | undefined, entry = 'test'): boolean {
  const text = scripts?.[entry];
  return typeof text !== 'string' || (entry === 'test' && PLACEHOLDER.test(text));
}

/**
 * Follows a package script as `npm run` would: the text read as a shell program (readers/shell-program.ts)
 * with every variable unset, `pre`/`post` scripts, scripts run by name with their extra arguments appended
 * (`npm run unit -- --ci`), every wrapper, and the shell script files and Makefile targets it runs
 * (`./scripts/test.sh`, `make test`; script-files.ts, depth- and count-bounded, files of the package
 * only), to the runner calls, hand-offs and unknowns it reaches. Never executes anything.
 *
 * @example
 * (await planScript({ test: 'cross-env CI=1 npm run unit -- src', unit: 'jest --ci' })).invocations;
 * // [{ runner: 'jest', args: ['--ci', 'src'], quoted: [false, false] }]
 */
export async function planScript(scripts: Record<string, unknown> | undefined, entry = 'test', options: PlanOptions = {}): Promise<ScriptPlan> {
  const plan = { missing: false, command: null as string | null, invocations: [] as Invocation[], delegations: [] as Delegation[],
    dirs: [] as Array<{ dir: string; script: string }>, unknown: [] as string[], followed: [] as string[], notes: [] as string[] };
  if (scriptMissing(scripts, entry)) return { ...plan, missing: true };
  plan.command = scripts![entry] as string;
  const seen = new Set<string>();
  let files = 0;
  const hasScript = (n: string): boolean => typeof scripts?.[n] === 'string'
    || (options.globScripts === true && /[*?]/.test(n) && Object.keys(scripts ?? {}).some((s) => globToRegExp(n.replace(/:/g, '/')).test(s.replace(/:/g, '/'))));

  const runScript = async (name: string, extra: readonly string[]): Promise<void> => {
    const body = scripts?.[name];
    if (typeof body !== 'string' || seen.has(name) || seen.size >= MAX_SCRIPTS) return;
    seen.add(name);
    // npm runs `pre<name>` and `post<name>` around a script; extra arguments go to the end of its text.
    await runScript(`pre${name}`, []);
    const text = body.trim() === 'wireit' ? await runWireit(name) : body;
    if (text !== undefined) await runText(extra.length > 0 ? `${text} ${extra.map(quote).join(' ')}` : text, '', 0, {});
    await runScript(`post${name}`, []);
  };

  /**
   * A `wireit` script: its `dependencies` first (local scripts, or `./dir:script` of another package),
   * then its `command`, returned to run; undefined when it has none.
   */
  const runWireit = async (name: string): Promise<string | undefined> => {
    const all = options.wireit && typeof options.wireit === 'object' ? options.wireit as Record<string, unknown> : {};
    const entry = all[name] && typeof all[name] === 'object' ? all[name] as { command?: unknown; dependencies?: unknown } : undefined;
    if (!entry) { plan.unknown.push('wireit'); plan.notes.push(`the \`${name}\` script runs wireit, but package.json \`wireit\` has no \`${name}\` entry`); return undefined; }
    for (const d of Array.isArray(entry.dependencies) ? entry.dependencies : []) {
      const dep = typeof d === 'string' ? d : d && typeof d === 'object' && typeof (d as { script?: unknown }).script === 'string' ? (d as { script: string }).script : undefined;
      if (dep === undefined) continue;
      const cross = /^(\.{1,2}\/[^:]*):(.+)$/.exec(dep);
      if (cross) plan.dirs.push({ dir: joinDir('', cross[1]!), script: cross[2]! });
      else await runScript(dep, []);
    }
    return typeof entry.command === 'string' ? entry.command : undefined;
  };

  /** A shell text run in `cwd` (package-relative), `depth` files deep, with positional parameters. */
  const runText = async (body: string, cwd: string, depth: number, params: Pick<ProgramOptions, 'args' | 'argsQuoted'>): Promise<void> => {
    const program = readProgram(body, { ...options, ...params });
    plan.notes.push(...program.notes);
    for (const cmd of program.commands) {
      const at = joinDir(cwd, cmd.cwd);
      if (at !== '' && /^(npm|yarn|pnpm|bun)$/.test(cmd.argv[0] ?? '')) {
        const step = classify(cmd.argv, cmd.quoted, () => true);
        if (step.kind === 'script' && Array.isArray(step.names)) for (const s of step.names) plan.dirs.push({ dir: at, script: s });
        continue;
      }
      await runCommand(cmd.argv, cmd.quoted, at, depth, 0);
    }
  };

  /** Whether one more file may be followed `depth` files deep; if not, the command is unknown and noted. */
  const mayFollow = (label: string, depth: number): boolean => {
    if (options.read && depth < MAX_FILE_DEPTH && files < MAX_FILES) { files++; return true; }
    plan.unknown.push(label);
    if (options.read) plan.notes.push(`\`${label}\` is ${depth >= MAX_FILE_DEPTH ? 'nested deeper' : 'one file more'} than projdex follows`);
    return false;
  };

  const runCommand = async (argv: readonly string[], quoted: readonly boolean[], cwd: string, depth: number, hops: number): Promise<void> => {
    if (hops > 8) return;
    const step = classify(argv, quoted, hasScript);
    switch (step.kind) {
      case 'runner':
        // Where it runs is settled by the caller (index.ts): that directory's own config, if it has one.
        plan.invocations.push({ runner: step.runner, args: step.args, quoted: step.quoted, ...(cwd !== '' ? { cwd } : {}) });
        return;
      case 'wrapped': return runCommand(step.argv, step.quoted, cwd, depth, hops + 1);
      case 'program': return runText(step.text, cwd, depth, {});
      case 'delegate': plan.delegations.push({ tool: step.tool, scripts: step.scripts, filters: step.filters }); return;
      case 'unknown': plan.unknown.push(step.name); return;
      case 'quiet': return;
      case 'shfile': {
        const label = [step.path, ...step.args].join(' ');
        if (!mayFollow(label, depth)) return;
        const file = joinDir(cwd, step.path);
        const text = await scriptFileText(options.read!, file);
        if (typeof text !== 'string') { plan.unknown.push(label); plan.notes.push(`\`${label}\`: ${text.why}`); return; }
        if (!plan.followed.includes(file)) plan.followed.push(file);
        return runText(text, cwd, depth + 1, { args: step.args, argsQuoted: step.quoted });
      }
      case 'jsfile': {
        const label = ['node', step.path, ...step.args].join(' ');
        if (!mayFollow(label, depth)) return;
        const file = joinDir(cwd, step.path);
        const text = file.startsWith('/') || file.startsWith('~') || file.startsWith('..') ? undefined : await options.read!(file);
        if (text === undefined) { plan.unknown.push(label); plan.notes.push(`\`${label}\`: ${file} is not a file of the project`); return; }
        if (isShelljsMake(text)) {
          // shelljs/make runs the targets named on its command line, `all` when none is.
          const goals = step.args.filter((a) => !a.startsWith('-'));
          const made = { lines: [] as string[], notes: [] as string[] };
          for (const goal of goals.length > 0 ? goals : ['all']) {
            const got = await makeJsCommands(text, file, goal);
            made.lines.push(...got.lines);
            made.notes.push(...got.notes);
          }
          plan.notes.push(...made.notes);
          if (made.lines.length === 0) { plan.unknown.push(label); return; }
          if (!plan.followed.includes(file)) plan.followed.push(file);
          return runText(made.lines.join('\n'), cwd, depth + 1, {});
        }
        // The words npm's shell gave the script, re-quoted where they were quoted, for a wrapper that runs them.
        const given = step.args.map((a, i) => (step.quoted[i] ? quote(a) : a)).join(' ');
        const found = nodeScriptCommands(text, given);
        if (found.lines.length === 0) {
          plan.unknown.push(label);
          plan.notes.push(`\`${label}\`: ${file} starts no command projdex can read${found.computed > 0 ? ` (${found.computed} computed)` : ''}`);
          return;
        }
        if (!plan.followed.includes(file)) plan.followed.push(file);
        if (found.forwards) plan.notes.push(`${file} was read as running the command it is given (\`${given}\`)`);
        if (found.computed > 0) plan.notes.push(`${file}: ${found.computed} command${found.computed === 1 ? ' is' : 's are'} computed; projdex read only the literal ones`);
        return runText(found.lines.join('\n'), cwd, depth + 1, {});
      }
      case 'make': {
        const label = ['make', ...(step.dir ? ['-C', step.dir] : []), ...step.targets].join(' ');
        if (!mayFollow(label, depth)) return;
        const made = await makeTexts(options.read!, joinDir(cwd, step.dir), step.file, step.targets);
        if (typeof made === 'string') { plan.unknown.push(label); plan.notes.push(`\`${label}\`: ${made}`); return; }
        for (const t of made) {
          if (!plan.followed.includes(t.file)) plan.followed.push(t.file);
          await runText(t.text, t.cwd, depth + 1, {});
        }
        return;
      }
      case 'tasks': {
        const label = step.argv.join(' ');
        if (!mayFollow(label, depth)) return;
        const found = await taskRunnerLines(options.read!, step.argv, cwd);
        if (!found || 'missing' in found) {
          const kind = step.argv[0] === 'just' ? 'justfile' : 'Taskfile';
          plan.unknown.push(label);
          plan.notes.push(`\`${label}\`: ${found?.missing === 'recipe' ? `no recipe of that name was found in its ${kind}` : `no ${kind} was found where it runs`}`);
          return;
        }
        if (!plan.followed.includes(found.file)) plan.followed.push(found.file);
        await runText(found.lines.join('\n'), found.dir, depth + 1, {});
        return;
      }
      case 'script': {
        if (step.dir !== undefined) { for (const n of step.names as string[]) plan.dirs.push({ dir: joinDir(cwd, step.dir), script: n }); return; }
        if (step.names instanceof RegExp) {
          for (const s of Object.keys(scripts ?? {})) if ((step.names as RegExp).test(s)) await runScript(s, step.args);
          return;
        }
        for (const n of step.names) {
          if (!/[*?]/.test(n)) { await runScript(n, step.args); continue; }
          // run-s / npm-run-all globs: `:` plays the role of `/` (`test:*` does not match `test:a:b`).
          const re = globToRegExp(n.replace(/:/g, '/'));
          for (const s of Object.keys(scripts ?? {})) if (re.test(s.replace(/:/g, '/'))) await runScript(s, step.args);
        }
      }
    }
  };

  await runScript(entry, []);
  return plan;
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
