import { readProgram, type ProgramOptions } from '../../readers/shell-program.ts';
import { globToRegExp } from '../glob.ts';
import { classify } from './commands.ts';
import type { Invocation } from './types.ts';

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
  /** Commands that name nothing projdex knows (`./scripts/test.sh`, `make test`). */
  readonly unknown: string[];
  /** Branches taken, conditions assumed, limits hit. */
  readonly notes: string[];
}

const PLACEHOLDER = /no test specified/;
const MAX_SCRIPTS = 64;

/**
 * Follows a package script as `npm run` would: the text read as a shell program (readers/shell-program.ts)
 * with every variable unset, `pre`/`post` scripts, scripts run by name with their extra arguments appended
 * (`npm run unit -- --ci`), and every wrapper, to the runner calls, hand-offs and unknowns it reaches.
 * Never executes anything.
 *
 * @example
 * planScript({ test: 'cross-env CI=1 npm run unit -- src', unit: 'jest --ci' }).invocations;
 * // [{ runner: 'jest', args: ['--ci', 'src'], quoted: [false, false] }]
 */
export function planScript(scripts: Record<string, unknown> | undefined, entry = 'test', options: ProgramOptions = {}): ScriptPlan {
  const text = scripts?.[entry];
  const plan = { missing: false, command: null as string | null, invocations: [] as Invocation[], delegations: [] as Delegation[],
    dirs: [] as Array<{ dir: string; script: string }>, unknown: [] as string[], notes: [] as string[] };
  if (typeof text !== 'string' || (entry === 'test' && PLACEHOLDER.test(text))) return { ...plan, missing: true };
  plan.command = text;
  const seen = new Set<string>();
  const hasScript = (n: string): boolean => typeof scripts?.[n] === 'string';

  const runScript = (name: string, extra: readonly string[]): void => {
    const body = scripts?.[name];
    if (typeof body !== 'string' || seen.has(name) || seen.size >= MAX_SCRIPTS) return;
    seen.add(name);
    // npm runs `pre<name>` and `post<name>` around a script; extra arguments go to the end of its text.
    runScript(`pre${name}`, []);
    runText(extra.length > 0 ? `${body} ${extra.map(quote).join(' ')}` : body);
    runScript(`post${name}`, []);
  };

  const runText = (body: string): void => {
    const program = readProgram(body, options);
    plan.notes.push(...program.notes);
    for (const cmd of program.commands) {
      if (cmd.cwd !== '' && /^(npm|yarn|pnpm|bun)$/.test(cmd.argv[0] ?? '')) {
        const step = classify(cmd.argv, cmd.quoted, () => true);
        if (step.kind === 'script' && Array.isArray(step.names)) for (const s of step.names) plan.dirs.push({ dir: cmd.cwd, script: s });
        continue;
      }
      runCommand(cmd.argv, cmd.quoted, 0);
    }
  };

  const runCommand = (argv: readonly string[], quoted: readonly boolean[], depth: number): void => {
    if (depth > 8) return;
    const step = classify(argv, quoted, hasScript);
    switch (step.kind) {
      case 'runner': plan.invocations.push({ runner: step.runner, args: step.args, quoted: step.quoted }); return;
      case 'wrapped': runCommand(step.argv, step.quoted, depth + 1); return;
      case 'program': runText(step.text); return;
      case 'delegate': plan.delegations.push({ tool: step.tool, scripts: step.scripts, filters: step.filters }); return;
      case 'unknown': plan.unknown.push(step.name); return;
      case 'quiet': return;
      case 'script': {
        if (step.dir !== undefined) { for (const n of step.names as string[]) plan.dirs.push({ dir: step.dir, script: n }); return; }
        if (step.names instanceof RegExp) {
          for (const s of Object.keys(scripts ?? {})) if ((step.names as RegExp).test(s)) runScript(s, step.args);
          return;
        }
        for (const n of step.names) {
          if (!/[*?]/.test(n)) { runScript(n, step.args); continue; }
          // run-s / npm-run-all globs: `:` plays the role of `/` (`test:*` does not match `test:a:b`).
          const re = globToRegExp(n.replace(/:/g, '/'));
          for (const s of Object.keys(scripts ?? {})) if (re.test(s.replace(/:/g, '/'))) runScript(s, step.args);
        }
      }
    }
  };

  runScript(entry, []);
  return plan;
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
