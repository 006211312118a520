import { randomBytes } from 'node:crypto';
import {
  closeSync, constants, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync,
  statSync, writeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CHALLENGE_HEADER, newChallenge, provesInstance } from './identity.ts';

/** What `server.json` holds while a server runs on a data dir. */
export interface ServerInfo {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Random per start: only the process that wrote the file removes it; /health proves it (identity.ts). */
  readonly instance: string;
  /** The bearer token, when the server requires one (the file is 0600 in a 0700 directory). */
  readonly token?: string;
}

/** A data dir projdex refuses to use; `message` says what is wrong and how to fix it. */
export class DataDirError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'DataDirError';
    this.code = code;
  }
}

/** A live server already owns the data dir. */
export class AlreadyRunningError extends Error {
  readonly code = 'ALREADY_RUNNING';
  readonly info: ServerInfo;
  constructor(info: ServerInfo) {
    super(`projdex is already running at ${info.url} (pid ${info.pid})`);
    this.name = 'AlreadyRunningError';
    this.info = info;
  }
}

/** Why a file or folder could not be made, in words, from the system's error code. */
export function whyNot(code: string | undefined): string {
  return code === 'EACCES' || code === 'EPERM' ? 'permission denied'
    : code === 'ENOTDIR' ? 'a part of that path is a file, not a directory'
      : code === 'EROFS' ? 'the file system is read-only'
        // A missing path after its parent was found: a file system that makes nothing there (/proc, /sys).
        : code === 'ENOENT' ? 'that file system does not allow creating anything there'
          : code === 'ENOSPC' ? 'the disk is full' : `the system said ${code ?? 'EIO'}`;
}

/**
 * Makes `dir` and its missing parents, one mkdir each. Node's `recursive` mkdir never returns on a path
 * under /proc (it takes ENOENT for a missing parent, makes the parent, gets EEXIST and starts again).
 */
function makeDirs(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let at = resolve(dir); ; at = dirname(at)) {
    try {
      statSync(at);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const at of missing.reverse()) {
    try {
      mkdirSync(at, { mode });
    } catch (error) {
      // Made meanwhile by someone else: what it is gets checked below.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * Creates `dir` (0700) if needed and checks it is a directory of ours that no one else may write:
 * the database and server.json in it are trusted. Throws DataDirError with a sentence naming the fix.
 */
export function prepareDataDir(dir: string): void {
  try {
    makeDirs(dir, 0o700);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DataDirError('DATA_DIR_CREATE',
      `Cannot create the data dir ${dir}: ${whyNot(code)}; choose another with --data-dir DIR.`);
  }
  const info = statSync(dir);
  if (!info.isDirectory()) {
    throw new DataDirError('DATA_DIR_NOT_DIR',
      `The data dir ${dir} is not a directory; choose another with --data-dir DIR.`);
  }
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new DataDirError('DATA_DIR_OWNER', `The data dir ${dir} belongs to another user `
      + `(uid ${info.uid}); choose one of your own with --data-dir DIR.`);
  }
  if ((info.mode & 0o022) !== 0) {
    const mode = (info.mode & 0o777).toString(8).padStart(4, '0');
    throw new DataDirError('DATA_DIR_MODE', `The data dir ${dir} is writable by group or others `
      + `(mode ${mode}); run \`chmod 700 ${dir}\` or choose another with --data-dir DIR.`);
  }
}

/**
 * Makes sure `file` exists as a regular file of ours without following a symlink planted in its place
 * (O_NOFOLLOW), so node:sqlite then opens the real thing. Also checks SQLite's side files.
 */
export function ensureRegularFile(file: string): void {
  for (const name of [file, `${file}-wal`, `${file}-shm`]) {
    let info;
    try {
      info = lstatSync(name);
    } catch {
      continue;
    }
    if (!info.isFile()) {
      throw new DataDirError('DATA_FILE_NOT_REGULAR', `${name} is not a regular file (a symlink?); `
        + 'projdex will not follow it: remove it or choose another --data-dir.');
    }
  }
  try {
    closeSync(openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DataDirError('DATA_FILE_OPEN', `Cannot open the database ${file} for writing: ${whyNot(code)}; `
      + 'choose another data dir with --data-dir DIR.');
  }
}

/** The server.json of `dir`, or undefined when absent or unreadable. */
export function readServerInfo(dir: string): ServerInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8')) as ServerInfo;
    return typeof info.url === 'string' && Number.isInteger(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}

/** True when a process with `pid` exists (EPERM: it exists, but is not ours). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The live server named by `dir`'s server.json, or undefined. A pid alone can be reused after a crash,
 * so the server must also answer `/health` within a second.
 */
export async function liveServer(dir: string): Promise<ServerInfo | undefined> {
  const info = readServerInfo(dir);
  if (!info || !pidAlive(info.pid)) return undefined;
  try {
    // Whatever answers on that port must prove it holds this file's instance before it is sent a token
    // or its pid a signal: the pid may have been reused, the port taken by another program.
    const challenge = newChallenge();
    const res = await fetch(`${info.url}/health`, {
      signal: AbortSignal.timeout(1500),
      headers: { [CHALLENGE_HEADER]: challenge },
    });
    const body = await res.json() as { status?: string; proof?: unknown };
    return body.status === 'ok' && typeof info.instance === 'string'
      && provesInstance(info.instance, challenge, body.proof) ? info : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Publishes server.json: written under a random temp name created exclusively (no symlink is followed),
 * then linked into place only if no server.json exists. When one does, `isStale` decides: a stale file is
 * replaced by rename (which replaces a symlink itself, never its target); a live one is left alone and
 * `false` is returned.
 */
export async function publishServerInfo(
  dir: string,
  info: ServerInfo,
  isStale: () => Promise<boolean>,
): Promise<boolean> {
  const file = join(dir, 'server.json');
  const temp = join(dir, `.server.json.${randomBytes(8).toString('hex')}.tmp`);
  const fd = openSync(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    writeSync(fd, JSON.stringify(info, null, 2) + '\n');
    // On disk before it is visible under its name: a crash never leaves a half-written server.json.
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    try {
      linkSync(temp, file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (!(await isStale())) return false;
    renameSync(temp, file);
    return true;
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Removes server.json if it is still the one `instance` wrote. */
export function removeServerInfo(dir: string, instance: string): void {
  if (readServerInfo(dir)?.instance === instance) rmSync(join(dir, 'server.json'), { force: true });
}
