/**
 * Each scan's git state, without git's walk of the whole tree when the scan's own check shows it would find
 * what it found last time.
 *
 * Most of a big repository's `git status` is its search for untracked files: it lists every directory and
 * matches ignore rules (~0.25 s of a 100k-file tree's 0.3 s, where the unchanged rescan itself takes ~0.07 s).
 * The scan's quick check has just stat'ed every directory it keeps. Untracked files come and go only by
 * adding, removing or renaming entries, which moves their directory's stamp; which of them git counts
 * depends on its index and its ignore settings. So when the quick check finds every directory as the last
 * snapshot recorded it, and `.git`'s index, HEAD, config and exclude file are as they were at the last
 * reading that listed untracked files, that reading's answer still stands and git reads only the tracked
 * files (`--untracked-files=no`). Anything else reads everything, beside the scan.
 *
 * What this cannot see, and why there is `untrackedMaxAgeMs`: folders the walk skips (`node_modules`, a
 * virtualenv, ...) that git does not ignore, and a global excludes file. A whole reading runs at least that
 * often while scans keep coming.
 */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { readGitState, type GitOptions, type GitState, type GitStatusReading } from './git.ts';

export interface GitReuseOptions {
  /** How git is run (time budget, output cap, program). @default readGitState's defaults */
  readonly git?: GitOptions;
  /** A reading's untracked files stand for at most this long; then git lists them again. @default 60_000 */
  readonly untrackedMaxAgeMs?: number;
  /**
   * A file of `.git` modified within this many milliseconds of being stat'ed is taken as changed next time
   * (it may change again within one filesystem clock tick). @default 2000
   */
  readonly racyMs?: number;
  /** The clock, in milliseconds. @default Date.now */
  readonly now?: () => number;
}

/** The last reading that listed untracked files, as the next scans may still use it. */
interface Listed {
  /** The project's scan generation saved with it: the next scan must start from that snapshot. */
  readonly generation: number;
  readonly untracked: boolean;
  /** `.git`'s files as stat'ed before that reading. */
  readonly signature: string;
  readonly at: number;
}

/** One scan's git reading, begun with the scan. */
export interface GitRead {
  /** The scan's quick check is done (`PoolScanCall.onDirsChecked`): the first call counts. */
  dirsChecked(unchanged: boolean): void;
  /** The reading, once the scan has finished (`dirsChecked` not called: taken as a directory moved). */
  finish(): Promise<GitStatusReading>;
  /** The scan was saved as `generation`: the next scan may use this reading's untracked files. */
  saved(generation: number): void;
}

/** A reading begun with the scan: everything, or only the tracked files (`.git` as at the last listing). */
type Begun = { readonly signature: string | null } & (
  { readonly reading: Promise<GitStatusReading> } | { readonly tracked: Promise<GitStatusReading> });

/** The files of `.git` whose change can change what git counts as untracked. */
const WATCHED = ['index', 'HEAD', 'config', join('info', 'exclude')];

/**
 * @example
 * const reuse = createGitReuse({ git: { timeoutMs: 5000 } });
 * const read = reuse.begin(project, snapshot?.generation);
 * const result = await pool.scan(root, options, { onDirsChecked: read.dirsChecked });
 * const { state, note } = await read.finish();
 */
export function createGitReuse(options: GitReuseOptions = {}) {
  const { git = {}, untrackedMaxAgeMs = 60_000, racyMs = 2000, now = Date.now } = options;
  const listed = new Map<number, Listed>();

  /** `.git`'s watched files as one string, or null when `.git` is not a directory here or one is racy. */
  const signatureOf = async (root: string, at: number): Promise<string | null> => {
    const dir = await fsp.lstat(join(root, '.git')).catch(() => undefined);
    if (!dir?.isDirectory()) return null;
    const stamp = async (name: string): Promise<string | null> => {
      const stat = await fsp.lstat(join(root, '.git', name), { bigint: true }).catch(() => undefined);
      if (stat === undefined) return '-';
      if (at - Number(stat.mtimeMs) < racyMs || at - Number(stat.ctimeMs) < racyMs) return null;
      return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
    };
    const parts = await Promise.all(WATCHED.map(stamp));
    return parts.includes(null) ? null : `${dir.ino}|${parts.join('|')}`;
  };

  return {
    /**
     * Starts reading `project`'s git state for a scan that starts from the snapshot saved as generation
     * `base` (undefined: no snapshot, or a full scan: everything is read).
     */
    begin(project: { readonly id: number; readonly path: string; readonly git: GitState | null },
      base: number | undefined): GitRead {
      const at = now();
      // A listing older than the age limit is never used again (a removed project's, say): let it go.
      for (const [id, entry] of listed) if (at - entry.at >= untrackedMaxAgeMs) listed.delete(id);
      const last = base === undefined ? undefined : listed.get(project.id);
      const usable = last !== undefined && last.generation === base && at - last.at < untrackedMaxAgeMs;
      const readAll = (): Promise<GitStatusReading> => readGitState(project.path, git, project.git);
      const signing = signatureOf(project.path, at);
      // Only the tracked files when `.git` is as it was; the untracked part waits for the quick check.
      const first: Promise<Begun> = signing.then((signature): Begun => (
        usable && signature !== null && signature === last.signature
          ? { signature, tracked: readGitState(project.path, git, project.git, { untracked: false }) }
          : { signature, reading: readAll() }));
      let checked: boolean | undefined;
      // The reading that lists untracked files once the quick check saw a directory move (or never said).
      let whole: Promise<GitStatusReading> | undefined;
      let keep: Omit<Listed, 'generation'> | undefined;
      const kept = (reading: GitStatusReading, signature: string | null): GitStatusReading => {
        if (reading.state !== null && reading.untracked !== null && signature !== null) {
          keep = { untracked: reading.untracked, signature, at };
        }
        return reading;
      };
      const read: GitRead = {
        dirsChecked(unchanged) {
          if (checked !== undefined) return;
          checked = unchanged;
          if (unchanged) return;
          whole = first.then((started) => ('reading' in started ? started.reading : readAll()));
        },
        async finish() {
          if (checked === undefined) read.dirsChecked(false);
          const started = await first;
          if (whole) return kept(await whole, started.signature);
          if ('reading' in started) return kept(await started.reading, started.signature);
          const tracked = await started.tracked;
          if (tracked.state === null) return tracked;
          keep = last!;
          const dirty = tracked.state.dirty || last!.untracked;
          return { state: { ...tracked.state, dirty }, note: null, untracked: null };
        },
        saved(generation) {
          if (keep) listed.set(project.id, { ...keep, generation });
          else listed.delete(project.id);
        },
      };
      return read;
    },
  };
}
