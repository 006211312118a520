/** Records of test runs, as the API returns them (`/api/runs/:id`). */

export type RunStatus = 'queued' | 'running' | 'passed' | 'failed' | 'error' | 'canceled';
export type FileStatus = 'passed' | 'failed' | 'skipped';

export interface Failure {
  readonly name: string;
  readonly message: string;
}

/** One test file's result in a run, as its runner reported it. */
export interface FileResult {
  /** Relative to the project's path, POSIX separators. */
  readonly file_path: string;
  readonly status: FileStatus;
  readonly duration_ms: number | null;
  readonly failures: Failure[];
}

/** One invocation of a runner: a recorded test command, with projdex's reporter flags when it has some. */
export interface StepRecord {
  readonly package: string;
  /** The command as it was run (reporter flags included), for a person to read. */
  readonly command: string;
  readonly runner: string | null;
  readonly exit_code: number | null;
  /** Why no per-file result was read, a killed step, a missing report: never silence. */
  readonly notes: string[];
}

export interface RunCounts {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

export interface RunRecord {
  readonly id: number;
  readonly project_id: number;
  readonly status: RunStatus;
  /** Unix seconds. */
  readonly started_at: number;
  readonly finished_at: number | null;
  /** The first non-zero exit code of a step, 0 when every step passed, null while running or killed. */
  readonly exit_code: number | null;
  readonly counts: RunCounts;
  readonly files: FileResult[];
  readonly steps: StepRecord[];
  /** The last 1 MiB of every step's combined stdout and stderr. */
  readonly output: string;
  /** Why the run ended in `error` or `canceled`, or null. */
  readonly reason: string | null;
}

/** What a project record carries about its newest finished run. */
export interface LastRun {
  readonly id: number;
  readonly status: RunStatus;
  readonly finished_at: number | null;
}
