/**
 * A run's steps, from what the last scan recorded (`runs`: package, command, runner): each distinct
 * command of a package is one step, started in that package's directory with the runner's reporter flags
 * when projdex reads that runner's report, else as written.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RunInfo } from '../../rules/types.ts';
import { argvOf, readCommand, showArgv } from './command.ts';
import { takesFiles } from './file-arguments.ts';
import { scriptHooks, type ScriptHooks } from './hooks.ts';
import { REPORTERS } from './reporters/index.ts';
import type { Reporter } from './reporters/reporter.ts';

/** A test file as the plan needs it: its path relative to the project, and the runner that runs it. */
export interface PlanTest {
  readonly file_path: string;
  readonly framework: string | null;
}

export interface Step {
  readonly package: string;
  readonly runner: string | null;
  /** Absolute directory the step runs in. */
  readonly cwd: string;
  /** Without the reporter's own paths yet: `finishArgv` adds them once the report directory exists. */
  readonly base: ReturnType<typeof readCommand> & object;
  readonly reporter: Reporter | undefined;
  /** Absolute paths of the files asked for, or undefined for the whole command. */
  readonly files: readonly string[] | undefined;
  /** Absolute paths of the project's known test files this step's runner runs under its directory. */
  readonly known: readonly string[];
  /** The package's `pretest`/`posttest` scripts, when the command is its `test` script. */
  readonly hooks: Pick<ScriptHooks, 'pre' | 'post'>;
  readonly notes: string[];
}

export interface PlanRequest {
  /** Files to run (relative to the project); undefined runs every step whole. */
  readonly files?: readonly string[];
}

/** The plan, or a sentence saying why nothing can run. */
export type Plan = { readonly steps: Step[] } | { readonly error: string };

export function planRun(root: string, runs: readonly RunInfo[], tests: readonly PlanTest[], request: PlanRequest = {}): Plan {
  const abs = (rel: string): string => (rel === '' ? root : `${root}/${rel}`);
  const byCommand = new Map<string, { info: RunInfo; runners: Set<string> }>();
  const recorded = runs.filter((r) => r.runner !== null || r.command !== null);
  // A command that reaches no runner projdex knows runs only when nothing else does (it may hand off).
  const knownRunners = recorded.some((r) => r.runner !== null);
  for (const info of recorded) {
    if (info.runner === null && knownRunners) continue;
    const command = info.command ?? (info.runner ? REPORTERS.get(info.runner)?.defaultCommand : undefined);
    if (!command) continue;
    const key = `${info.package}\0${command}`;
    const entry = byCommand.get(key) ?? { info: { ...info, command }, runners: new Set<string>() };
    if (info.runner) entry.runners.add(info.runner);
    byCommand.set(key, entry);
  }
  addUnrecorded(tests, byCommand, abs);

  const wanted = request.files ? new Set(request.files) : undefined;
  const steps: Step[] = [];
  const unrunnable: string[] = [];
  for (const { info, runners } of byCommand.values()) {
    const cwd = abs(info.package);
    const under = (file: string): boolean => info.package === '' || file.startsWith(info.package + '/');
    const mine = tests.filter((t) => under(t.file_path) && (runners.size === 0 || runners.has(t.framework ?? '')));
    const chosen = wanted ? mine.filter((t) => wanted.has(t.file_path)) : undefined;
    if (chosen && chosen.length === 0) continue;
    const invocation = readCommand(info.command!);
    if (!invocation) { unrunnable.push(`\`${info.command}\` cannot be read as a command`); continue; }
    const notes: string[] = [];
    const reporter = pickReporter(invocation, runners, notes, info.command!);
    const { notes: hookNotes, ...hooks } = scriptHooks(root, cwd, info.command!);
    notes.push(...hookNotes);
    const files = chosen?.map((t) => abs(t.file_path));
    const runner = reporter?.runner ?? [...runners][0] ?? null;
    const whole = files && (reporter ? reporter.wholeFor?.(files, invocation.last)
      : takesFiles(runner, invocation.last) ? undefined : 'this runner cannot be given single files: the whole command ran');
    if (whole) notes.push(whole);
    else if (files && !reporter) notes.push(`only the files asked for were given to ${runner}`);
    steps.push({
      package: info.package, runner, cwd, base: invocation, reporter,
      files: whole ? undefined : files,
      known: mine.map((t) => abs(t.file_path)), hooks, notes,
    });
  }
  if (steps.length > 0) return { steps };
  if (wanted) return { error: 'None of the files asked for is a test file of a runnable test command of this project' };
  if (unrunnable.length > 0) return { error: `No runnable test command: ${unrunnable.join('; ')}` };
  return { error: 'No runnable test command: the last scan found no test command (a `test` script, a runner config) in this project' };
}

/** The argv of a step once its report directory is known. */
export function stepArgv(step: Step, extra: readonly string[]): { argv: string[]; shown: string } {
  const argv = argvOf(step.base, extra);
  return { argv, shown: showArgv(argv) };
}

function pickReporter(invocation: NonNullable<ReturnType<typeof readCommand>>, runners: ReadonlySet<string>,
  notes: string[], command: string): Reporter | undefined {
  const keep = 'so the exit code decides the step and its files keep their previous status';
  const reasons: string[] = [];
  for (const runner of runners) {
    const reporter = REPORTERS.get(runner);
    if (!reporter) continue;
    const refused = !reporter.accepts(invocation.last)
      ? `\`${command}\` does not start ${runner} as its last command, so no reporter could be added`
      : reporter.refuse?.(invocation);
    if (!refused) return reporter;
    reasons.push(refused);
  }
  const names = [...runners].join(', ') || 'no runner projdex knows';
  notes.push(`no per-file result: ${reasons.length > 0 ? reasons.join('; ') : `projdex reads no report of ${names}`}; ${keep}`);
  return undefined;
}

/**
 * Runners the scan records no command for (Go has no test script; RSpec and PHPUnit are found by their
 * files) get a step with their default command in the nearest directory holding one of their `home`
 * files (`go.mod`, `.rspec`, `Gemfile`, `phpunit.xml`...), for test files no recorded command covers.
 */
function addUnrecorded(tests: readonly PlanTest[], byCommand: Map<string, { info: RunInfo; runners: Set<string> }>,
  abs: (rel: string) => string): void {
  const homes = new Map<string, Set<string>>();
  for (const t of tests) {
    const reporter = REPORTERS.get(t.framework ?? '');
    if (!reporter?.home) continue;
    const covered = [...byCommand.values()].some((e) => e.runners.has(reporter.runner)
      && (e.info.package === '' || t.file_path.startsWith(e.info.package + '/')));
    if (covered) continue;
    for (let dir = dirname(t.file_path); ; dir = dirname(dir)) {
      const rel = dir === '.' ? '' : dir;
      if (reporter.home.some((name) => existsSync(`${abs(rel)}/${name}`))) {
        homes.set(reporter.runner, (homes.get(reporter.runner) ?? new Set()).add(rel));
        break;
      }
      if (rel === '') break;
    }
  }
  for (const [runner, dirs] of homes) {
    const reporter = REPORTERS.get(runner)!;
    for (const pkg of dirs) {
      const command = reporter.commandIn?.(abs(pkg)) ?? reporter.defaultCommand!;
      byCommand.set(`${pkg}\0${command}`, {
        info: { package: pkg, command, runner, config: null, notes: [] }, runners: new Set([runner]),
      });
    }
  }
}
