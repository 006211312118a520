/** What a runner's reporter is to the run engine: flags to add, and the report read back per test. */
import { stat } from 'node:fs/promises';
import type { Invocation } from '../command.ts';

/** One test (or a file that failed to load) as a runner reported it. */
export interface TestOutcome {
  /** Absolute path of the test file. */
  readonly file: string;
  readonly name: string;
  readonly status: 'passed' | 'failed' | 'skipped';
  readonly ms: number | null;
  readonly message?: string;
}

export interface ReportContext {
  /** The step's working directory (the package's directory). */
  readonly cwd: string;
  /** A fresh directory outside the project, for this step's report files only. */
  readonly reportDir: string;
  /** The test files this step was asked to run (absolute), or undefined for all of them. */
  readonly files?: readonly string[];
  /** Absolute paths of the project's known test files of this runner (go maps tests to files with them). */
  readonly known: readonly string[];
  /** The words of the command's last simple command, which the arguments are appended to. */
  readonly words: readonly string[];
  /** The step's environment before the reporter's own variables (a path list to extend). */
  readonly env?: NodeJS.ProcessEnv;
}

/** Reads a step's stdout line by line (streaming reporters); returns the text to show for the line. */
export interface LineReader {
  line(line: string): string | undefined;
  outcomes(): TestOutcome[];
  /** What the step's record should say about what was read (tests it could not place on a file). */
  notes?(): string[];
}

export interface Reporter {
  /** The `framework` value of the files it reports. */
  readonly runner: string;
  /** Whether the words of the command's last simple command start this runner. */
  accepts(words: readonly string[]): boolean;
  /** The command used when the scan recorded the runner but no command (pytest, go). */
  readonly defaultCommand?: string;
  /**
   * For runners the scan records no command for (go, rspec, phpunit): the files whose nearest directory
   * is where the default command runs, for test files no recorded command covers.
   */
  readonly home?: readonly string[];
  /** The default command for that directory, where it depends on it (`bundle exec rspec`). */
  commandIn?(dir: string): string;
  /** Why this command cannot take the reporter flags (e.g. it sets its own reporter), or undefined. */
  refuse?(invocation: Invocation): string | undefined;
  /** Writes what the flags point to (a reporter module) into `reportDir` before the step starts. */
  prepare?(ctx: ReportContext): Promise<void>;
  /** Arguments appended to the command: the reporter's flags, then the files asked for. */
  args(ctx: ReportContext): string[];
  /** Variables added to the step's environment (where a runner takes its report path from one). */
  env?(ctx: ReportContext): Record<string, string>;
  /** Whether stderr goes to the stdout pipe (one pipe keeps cargo's banners and results in order). */
  readonly mergeStderr?: boolean;
  /** Why these files (absolute) cannot be run alone, so the whole command runs; undefined when they can. */
  wholeFor?(files: readonly string[], words: readonly string[]): string | undefined;
  /** A reader of stdout for a streaming format (go, cargo), created per step. */
  stdout?(ctx: ReportContext): LineReader;
  /** Reads the report written into `reportDir`; throws (a sentence) when it is missing or unreadable. */
  read?(ctx: ReportContext): Promise<TestOutcome[]>;
}

/** The basename of a command word: `./node_modules/.bin/jest` is `jest`. */
export function bin(word: string | undefined): string {
  return (word ?? '').slice((word ?? '').lastIndexOf('/') + 1);
}

/** Reports over this size are not read: a runner cannot make the server hold gigabytes. */
export const MAX_REPORT_BYTES = 64 * 1024 * 1024;
/**
 * Checks that a runner wrote its report at `path` and that it is small enough to read; throws `missing` (a
 * sentence for the step's record) when there is none.
 */
export async function checkReport(path: string, missing: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new Error(missing);
  if (info.size > MAX_REPORT_BYTES) throw new Error(`the report is over ${MAX_REPORT_BYTES} bytes: not read`);
}

/** A failure message is kept to this many characters. */
export const MAX_MESSAGE = 2000;

/** A message as stored: ANSI escapes stripped (some runners keep them whatever the env says), bounded. */
export function cleanMessage(text: unknown): string {
  // eslint-disable-next-line no-control-regex
  return String(text ?? '').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').slice(0, MAX_MESSAGE);
}
