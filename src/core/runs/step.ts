/**
 * Runs one step: a fresh report directory outside the project, the process in its own group, output
 * kept and streamed, and the runner's report read back per test once the process has ended.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { stepEnv } from './env.ts';
import { stepArgv, type Step } from './plan.ts';
import { startStep, type StepProcess } from './process.ts';
import type { LineReader, ReportContext, TestOutcome } from './reporters/reporter.ts';
import type { StepRecord } from './types.ts';

/** A line of a streamed report longer than this is cut (a hostile runner cannot grow a line forever). */
const MAX_LINE = 1024 * 1024;

export interface StepOptions {
  /** The project's root: `node_modules/.bin` directories from the step's up to it go first on PATH. */
  readonly root: string;
  readonly env: NodeJS.ProcessEnv;
  readonly secrets: readonly string[];
  /** Every piece of output for people (combined stdout and stderr, as it comes). */
  readonly onOutput: (text: string) => void;
  /** Called with the step's process once it started, so the run can end it. */
  readonly onProcess: (process: StepProcess) => void;
}

export interface StepResult {
  readonly record: StepRecord;
  readonly outcomes: TestOutcome[];
  /** True when the step could not start at all (the program is missing). */
  readonly failedToStart: boolean;
}

export async function runStep(step: Step, { root, env, secrets, onOutput, onProcess }: StepOptions): Promise<StepResult> {
  const reportDir = await mkdtemp(join(tmpdir(), 'projdex-run-'));
  try {
    const baseEnv = stepEnv(env, { secrets, binDirs: binDirs(root, step.cwd) });
    const ctx: ReportContext = { cwd: step.cwd, reportDir, known: step.known, words: step.base.last, env: baseEnv, ...(step.files ? { files: step.files } : {}) };
    const reporter = step.reporter;
    await reporter?.prepare?.(ctx);
    const { argv: own, shown } = stepArgv(step, reporter ? reporter.args(ctx) : (step.files ?? []).map((f) => relative(step.cwd, f)));
    const stepEnvironment = { ...baseEnv, ...reporter?.env?.(ctx) };
    // One pipe for both streams, shared at the descriptor, keeps their lines in the order they were written.
    // A program that is not there is started directly, so it fails to start as any other would.
    const argv = reporter?.mergeStderr && findProgram(own[0]!, step.cwd, stepEnvironment.PATH)
      ? ['/bin/sh', '-c', 'exec "$@" 2>&1', 'sh', ...own] : own;
    const where = step.package ? `   (in ${step.package})` : '';
    // The package's `pretest`, as `npm test` runs it: a failure stops the step before the tests.
    if (step.hooks.pre !== undefined) {
      const pre = await runHook('pretest', step.hooks.pre, { cwd: step.cwd, env: baseEnv, where, onOutput, onProcess });
      if (pre.code !== 0) {
        return { record: { package: step.package, command: shown, runner: step.runner, exit_code: pre.code, notes: [...step.notes, pre.note] },
          outcomes: [], failedToStart: false };
      }
    }
    onOutput(`$ ${shown}${where}\n`);
    const reader = reporter?.stdout?.(ctx);
    // Decoders keep a character cut between two chunks whole.
    const [outText, errText] = [new StringDecoder('utf8'), new StringDecoder('utf8')];
    const stdout = reader ? lineSplitter(reader, onOutput) : { push: (b: Buffer) => onOutput(outText.write(b)), end: () => {} };
    const child = startStep({
      argv, cwd: step.cwd, env: stepEnvironment,
      onStdout: (chunk) => stdout.push(chunk), onStderr: (chunk) => onOutput(errText.write(chunk)),
    });
    onProcess(child);
    const exit = await child.done;
    stdout.end();
    const notes = [...step.notes];
    if (exit.error) notes.push(`could not start: ${exit.error}`);
    else if (exit.signal) notes.push(`ended by ${exit.signal}`);
    let outcomes: TestOutcome[] = [];
    if (reader) { outcomes = reader.outcomes(); notes.push(...(reader.notes?.() ?? [])); }
    else if (reporter?.read && !exit.error) {
      try { outcomes = await reporter.read(ctx); } catch (error) { notes.push(`no per-file result: ${(error as Error).message}`); }
    }
    if (reporter && !exit.error && outcomes.length === 0 && !notes.some((n) => n.startsWith('no per-file result'))) {
      notes.push('no per-file result: the runner reported no test');
    }
    let code = exit.code;
    if (step.hooks.pre !== undefined) notes.push('the package\'s `pretest` script ran first, as `npm test` runs it');
    // `posttest` runs after a passing test only; its failure fails the step, as it fails `npm test`.
    if (step.hooks.post !== undefined && code === 0) {
      const post = await runHook('posttest', step.hooks.post, { cwd: step.cwd, env: baseEnv, where, onOutput, onProcess });
      notes.push(post.code === 0 ? 'the package\'s `posttest` script ran after the tests passed, as `npm test` runs it' : post.note);
      code = post.code;
    }
    return {
      record: { package: step.package, command: shown, runner: step.runner, exit_code: code, notes },
      outcomes, failedToStart: exit.error !== undefined,
    };
  } finally {
    await rm(reportDir, { recursive: true, force: true });
  }
}

interface HookOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly where: string;
  readonly onOutput: (text: string) => void;
  readonly onProcess: (process: StepProcess) => void;
}

/** Runs a package script through `sh -c`, as package managers do; its output is the step's. */
async function runHook(name: string, script: string, { cwd, env, where, onOutput, onProcess }: HookOptions): Promise<{ code: number | null; note: string }> {
  onOutput(`$ ${script}${where}   (${name})\n`);
  const [outText, errText] = [new StringDecoder('utf8'), new StringDecoder('utf8')];
  const child = startStep({ argv: ['/bin/sh', '-c', script], cwd, env,
    onStdout: (chunk) => onOutput(outText.write(chunk)), onStderr: (chunk) => onOutput(errText.write(chunk)) });
  onProcess(child);
  const exit = await child.done;
  const how = exit.error ? `could not start: ${exit.error}` : exit.signal ? `ended by ${exit.signal}` : `exit code ${exit.code}`;
  const after = name === 'pretest' ? 'the tests did not run' : 'the step failed';
  return { code: exit.code, note: `the package's \`${name}\` script failed (${how}): ${after}` };
}

/** Whether `program` can be executed: a path (from `cwd`), or a name found on `PATH`. */
function findProgram(program: string, cwd: string, path: string | undefined): boolean {
  const candidates = program.includes('/') ? [resolve(cwd, program)]
    : (path ?? '').split(delimiter).filter((d) => d !== '').map((d) => join(d, program));
  return candidates.some((file) => {
    try { accessSync(file, constants.X_OK); return statSync(file).isFile(); } catch { return false; }
  });
}

/** `node_modules/.bin` of the step's directory and each parent up to the project root, nearest first. */
function binDirs(root: string, cwd: string): string[] {
  const dirs: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    dirs.push(`${dir}/node_modules/.bin`);
    if (dir === root || dirname(dir) === dir || !dir.startsWith(root)) break;
  }
  return dirs;
}

/** Feeds stdout to a streaming reader line by line; what it returns is shown. */
function lineSplitter(reader: LineReader, onOutput: (text: string) => void) {
  let partial = '';
  const decoder = new StringDecoder('utf8');
  const take = (line: string): void => {
    const shown = reader.line(line);
    if (shown !== undefined) onOutput(shown + '\n');
  };
  return {
    push(chunk: Buffer): void {
      const lines = (partial + decoder.write(chunk)).split('\n');
      partial = lines.pop() ?? '';
      if (partial.length > MAX_LINE) partial = partial.slice(0, MAX_LINE);
      for (const line of lines) take(line);
    },
    end(): void { if (partial !== '') take(partial); partial = ''; },
  };
}
