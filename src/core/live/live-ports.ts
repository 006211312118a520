/**
 * Which TCP ports are listened on now, by which process, and whose project that process runs in (its
 * working directory inside a registered project's path). Read only on request (`GET /api/ports?live=1`,
 * starting a script), never by a scan or watch mode.
 */
import { sep } from 'node:path';
import type { Project } from '../types.ts';
import { linuxListening } from './proc-net.ts';
import { lsofListening } from './lsof.ts';
import type { ListeningSocket, LiveLimits } from './types.ts';

export type { ListeningSocket, LiveLimits } from './types.ts';

/** A listening socket with the registered project its holder runs in (null: none, or unknown). */
export interface LiveSocket extends ListeningSocket {
  readonly project_id: number | null;
}

export interface LiveReading {
  /** False when this platform gives no way to list sockets: `sockets` is empty and `notes` say why. */
  readonly available: boolean;
  readonly sockets: LiveSocket[];
  /** What was left out or could not be told, in words. */
  readonly notes: string[];
}

/** Where sockets are read from: `/proc` (Linux), `lsof` (macOS and other Unix systems), or nowhere. */
export type LiveSource = 'proc' | 'lsof' | 'none';

export interface LiveOptions extends LiveLimits {
  /** @default process.platform */
  readonly platform?: NodeJS.Platform;
  /** @default the platform's: `proc` on Linux, `none` on Windows, `lsof` elsewhere */
  readonly source?: LiveSource;
}

/** The platform's way to list sockets. Windows has neither procfs nor lsof: its listing is not read. */
export function defaultSource(platform: NodeJS.Platform): LiveSource {
  return platform === 'linux' ? 'proc' : platform === 'win32' ? 'none' : 'lsof';
}

/** The registered project whose path holds `cwd` (the deepest one when projects nest), else null. */
export function projectOf(cwd: string | null, projects: ReadonlyArray<Pick<Project, 'id' | 'path'>>): number | null {
  if (cwd === null) return null;
  let best: { id: number; length: number } | undefined;
  for (const { id, path } of projects) {
    if ((cwd === path || cwd.startsWith(path + sep)) && (!best || path.length > best.length)) best = { id, length: path.length };
  }
  return best?.id ?? null;
}

/**
 * Reads the machine's listening TCP sockets: Linux from /proc, Windows not at all, elsewhere with lsof when
 * it is installed (`source` picks one). Never rejects: what cannot be read is a note.
 *
 * @example
 * const { sockets } = await readLivePorts(store.listProjects());
 * sockets.find((s) => s.port === 5173); // { port: 5173, address: '127.0.0.1', pid: 4242, command: 'node vite', cwd, project_id: 3 }
 */
export async function readLivePorts(
  projects: ReadonlyArray<Pick<Project, 'id' | 'path'>>, options: LiveOptions = {},
): Promise<LiveReading> {
  const { platform = process.platform, source = defaultSource(platform), ...limits } = options;
  if (source === 'none') {
    const note = `live ports are not read on ${platform}: projdex reads /proc on Linux and runs lsof on macOS and other Unix systems`;
    return { available: false, sockets: [], notes: [note] };
  }
  let found: { sockets: ListeningSocket[]; notes: string[] };
  try {
    found = source === 'proc' ? await linuxListening(limits) : await lsofListening(limits);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const note = code === 'ENOENT'
      ? `live ports are not available on ${platform}: projdex reads /proc on Linux and runs lsof elsewhere, and lsof is not installed`
      : code === 'NO_PROCFS' ? `live ports could not be read: ${(error as Error).message}`
        : `live ports could not be read: ${code === 'RUN_TIMEOUT' ? (error as Error).message : `lsof failed (${code ?? 'error'})`}`;
    return { available: false, sockets: [], notes: [note] };
  }
  const sockets = found.sockets.map((s) => ({ ...s, project_id: projectOf(s.cwd, projects) }));
  const hidden = sockets.filter((s) => s.pid === null).length;
  const notes = [...found.notes];
  if (hidden > 0) {
    notes.push(`${hidden} listening socket${hidden === 1 ? ' is' : 's are'} held by processes projdex cannot see `
      + '(another user\'s, ones outside this process namespace, or past the look-up budget)');
  }
  return { available: true, sockets, notes };
}
