/**
 * A project's git state, read with the `git` executable (no library): `git status --porcelain=v2 --branch`
 * for the branch, head, upstream distance and dirtiness, `git log -1 --format=%ct` for the last commit's time.
 * A repository's own config is input someone else may have written, so git runs without a shell, with fixed
 * arguments, fsmonitor off (it names a program to run), without taking the index lock, in an environment
 * holding nothing of projdex's (no token, no GIT_* that could point it at another repository; the user's
 * discovery ceiling is kept: it can only stop git from finding one), within a time budget and an output cap.
 */
import { runBounded, type BoundedOutput } from './run-bounded.ts';

/** What `git` says about a project's working tree. */
export interface GitState {
  /** The checked-out branch; null on a detached HEAD. */
  readonly branch: string | null;
  /** The commit HEAD names (full hash); null in a repository without commits. */
  readonly head: string | null;
  /** True when anything tracked differs from HEAD or an untracked file exists (ignored files do not count). */
  readonly dirty: boolean;
  /** Commits ahead of and behind the upstream; null without an upstream. */
  readonly ahead: number | null;
  readonly behind: number | null;
  /** Unix seconds of HEAD's commit (committer date); null without commits. */
  readonly last_commit_at: number | null;
}

/** The state, or null with the reason in words. */
export type GitReading = { readonly state: GitState; readonly note: null } | { readonly state: null; readonly note: string };

/**
 * A reading and whether git listed an untracked file: null when that is not known (only tracked files were
 * read, the output was capped, or there is no state).
 */
export type GitStatusReading = GitReading & { readonly untracked: boolean | null };

/** What `readGitState` asks git. */
export interface GitReadScope {
  /** List untracked files (git's walk of every directory, most of a big tree's `git status`). @default true */
  readonly untracked?: boolean;
}

export interface GitOptions {
  /** Deadline of each git command, in milliseconds. @default 5000 */
  readonly timeoutMs?: number;
  /** Most bytes of output read from each command; a status over it still gives branch and dirtiness. @default 1 MiB */
  readonly maxBytes?: number;
  /** The git program. @default 'git' */
  readonly git?: string;
  /** The environment the child gets (see `gitEnv`). @default gitEnv(process.env) */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Variables a git child keeps from projdex's environment: enough to find git and the user's config, and the
 * user's `GIT_CEILING_DIRECTORIES` (folders git does not search above for a repository: set, say, so that a
 * home directory kept in git is not every project's repository). No more.
 */
const KEPT = [
  'PATH', 'HOME', 'USER', 'LOGNAME', 'TMPDIR', 'SYSTEMROOT', 'WINDIR', 'XDG_CONFIG_HOME',
  'GIT_CEILING_DIRECTORIES',
];

/** An allow-list copy of `env` for git: never a token, never GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, ... */
export function gitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' };
  for (const name of KEPT) if (env[name] !== undefined) out[name] = env[name];
  return out;
}

/** Runs git with `args` in `cwd`; rejects on a missing git (ENOENT) and on the deadline. */
function runGit(cwd: string, args: readonly string[], options: GitOptions): Promise<BoundedOutput> {
  const { timeoutMs = 5000, maxBytes = 1 << 20, git = 'git', env } = options;
  // fsmonitor names a program to run; the -c comes before the repository's config is read, and wins.
  return runBounded(git, ['-c', 'core.fsmonitor=false', '--no-optional-locks', ...args], {
    cwd, env: env ?? gitEnv(process.env), timeoutMs, maxBytes, what: 'git',
  });
}

/**
 * Parses `git status --porcelain=v2 --branch` output (headers first, then one line per changed path).
 *
 * @example
 * parseStatus('# branch.oid abc\n# branch.head main\n# branch.ab +1 -0\n? new.txt\n');
 * // { branch: 'main', head: 'abc', dirty: true, ahead: 1, behind: 0 }
 */
export function parseStatus(text: string): Omit<GitState, 'last_commit_at'> {
  let branch: string | null = null;
  let head: string | null = null;
  let ahead: number | null = null;
  let behind: number | null = null;
  let dirty = false;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (!line.startsWith('# ')) { dirty = true; continue; }
    const [key, ...rest] = line.slice(2).split(' ');
    const value = rest.join(' ');
    if (key === 'branch.oid') head = value === '(initial)' ? null : value;
    else if (key === 'branch.head') branch = value === '(detached)' ? null : value;
    else if (key === 'branch.ab') {
      const match = /^\+(\d+) -(\d+)$/.exec(value);
      if (match) { ahead = Number(match[1]); behind = Number(match[2]); }
    }
  }
  return { branch, head, dirty, ahead, behind };
}

/**
 * Reads the git state of the repository holding `dir` (a project may be a folder of a bigger repository).
 * Never rejects: no repository, no git, a refused repository or a slow one is `state: null` with a note.
 * `known` is the state read last time: when HEAD still names its commit, that commit's time is taken from it
 * (a commit's date is part of its hash) and `git log` is not run, so a rescan runs one git process, not two.
 *
 * @example
 * const { state, note } = await readGitState('/home/me/app');
 */
export async function readGitState(
  dir: string, options: GitOptions = {}, known: GitState | null = null,
  { untracked = true }: GitReadScope = {},
): Promise<GitStatusReading> {
  let status: BoundedOutput;
  const listed = untracked ? 'normal' : 'no';
  try {
    const args = ['status', '--porcelain=v2', '--branch', `--untracked-files=${listed}`,
      '--ignore-submodules=all'];
    status = await runGit(dir, args, options);
  } catch (error) {
    return { state: null, note: failure(error), untracked: null };
  }
  if (status.code !== 0 && !status.capped) {
    return { state: null, note: refusal(status.stderr), untracked: null };
  }
  const text = status.capped ? status.stdout.slice(0, status.stdout.lastIndexOf('\n') + 1) : status.stdout;
  const parsed = parseStatus(text);
  // Porcelain v2 lists untracked paths as `? path`; a capped output may have cut them off.
  const untrackedListed = untracked && !status.capped ? /^\? /m.test(text) : null;
  let lastCommitAt: number | null = null;
  if (parsed.head !== null && parsed.head === known?.head && known.last_commit_at !== null) {
    lastCommitAt = known.last_commit_at;
  } else if (parsed.head !== null) {
    try {
      const log = await runGit(dir, ['log', '-1', '--format=%ct'], options);
      const seconds = Number(log.stdout.trim());
      if (log.code === 0 && Number.isSafeInteger(seconds)) lastCommitAt = seconds;
    } catch (error) {
      return { state: null, note: failure(error), untracked: null };
    }
  }
  return { state: { ...parsed, last_commit_at: lastCommitAt }, note: null, untracked: untrackedListed };
}

function failure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'git state unknown: the git executable was not found on PATH';
  if (code === 'RUN_TIMEOUT') return `git state unknown: ${(error as Error).message}`;
  return `git state unknown: git could not be run (${code ?? 'error'})`;
}

/** Why git answered an error, in words (its own first line for anything unexpected, without paths). */
function refusal(stderr: string): string {
  if (/not a git repository/i.test(stderr)) return 'no git repository: the project is not inside a git working tree';
  if (/dubious ownership/i.test(stderr)) {
    return 'git state unknown: git refuses this repository (owned by another user; see git\'s safe.directory)';
  }
  if (/must be run in a work tree/i.test(stderr)) return 'no git working tree: the project is inside a bare repository or .git';
  const first = stderr.split('\n').find((line) => line.trim() !== '') ?? 'no message';
  return `git state unknown: git status failed (${first.replace(/^fatal: /, '').replace(/'[^']*'/g, '…').slice(0, 200)})`;
}
