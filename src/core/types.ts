import type { LastRun } from './runs/types.ts';
/** Records as the API returns them: the contract's field names, plain objects. */
import type { GitState } from './git.ts';

export interface Project {
  readonly id: number;
  readonly name: string;
  /** Absolute real path of the project's directory, without a trailing slash. */
  readonly path: string;
  readonly description: string | null;
  readonly framework: string | null;
  readonly tags: string[];
  /** Unix seconds of the last finished scan. */
  readonly last_scanned: number | null;
  /** Unix seconds. */
  readonly created_at: number;
  /** The newest finished test run, or null when the project's tests were never run by projdex. */
  readonly last_run: LastRun | null;
  /** The git state the last scan read (core/git.ts); null before a scan, or without a repository or git. */
  readonly git: GitState | null;
  /** Why `git` is null after a scan (no repository, no git executable, a refused or slow one); else null. */
  readonly git_note: string | null;
}

export interface Test {
  readonly id: number;
  readonly project_id: number;
  /** POSIX path relative to the project's path. */
  readonly file_path: string;
  readonly framework: string | null;
  /** `passed`, `failed` or `skipped` as the newest run that reported the file said; null if never run. */
  readonly status: string | null;
  /** Unix seconds of that run's end. */
  readonly last_run: number | null;
  /** Static estimate of the test cases the file declares, or null when not counted. */
  readonly cases: number | null;
  readonly created_at: number;
}

export interface ProjectPort {
  readonly id: number;
  readonly project_id: number;
  readonly port: number;
  readonly script_name: string | null;
  readonly config_source: string;
  readonly last_detected: number;
  readonly created_at: number;
  /**
   * `listen`: a process of the project binds it on the host; `connect`: a client setting; `container`: bound
   * inside a container that nothing publishes on the host (src/ports/kind.ts).
   */
  readonly kind: 'listen' | 'connect' | 'container';
}

/** The fields `PUT /api/projects/:id` may change; absent means unchanged. */
export interface ProjectUpdate {
  readonly name?: string;
  readonly description?: string | null;
  readonly framework?: string | null;
  readonly tags?: string[];
}
