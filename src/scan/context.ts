import { promises as fsp, constants } from 'node:fs';
import { parseJsonc } from './jsonc.ts';
import type { ScanContext, Tree } from './types.ts';

export interface ContextOptions {
  /** Largest file `read` returns, in bytes; larger files read as `undefined`. @default 1_048_576 */
  readonly maxFileBytes?: number;
}

// O_NOFOLLOW: a config file that is a symlink (say, to /dev/zero) is never opened through the link.
// O_NONBLOCK: opening a FIFO named like a config file must not hang the event loop.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Wraps a walked tree into the read-only view discovery rules get. `read` only opens files the walk
 * recorded as regular files, so no rule can read outside the project or through a symlink.
 */
export function createContext(root: string, tree: Tree, { maxFileBytes = 1_048_576 }: ContextOptions = {}): ScanContext & { notes: string[] } {
  const fileSet = new Set(tree.files);
  const texts = new Map<string, Promise<string | undefined>>();
  const notes: string[] = [];
  const base = root.endsWith('/') ? root : root + '/';

  const readFresh = async (file: string): Promise<string | undefined> => {
    let handle: fsp.FileHandle | undefined;
    try {
      handle = await fsp.open(base + file, OPEN_FLAGS);
      const info = await handle.stat();
      if (!info.isFile() || info.size > maxFileBytes) return undefined;
      const text = await handle.readFile('utf8');
      return text.length > maxFileBytes ? undefined : text;
    } catch {
      return undefined;
    } finally {
      await handle?.close().catch(() => {});
    }
  };

  const read = (file: string): Promise<string | undefined> => {
    if (!fileSet.has(file)) return Promise.resolve(undefined);
    let text = texts.get(file);
    if (!text) texts.set(file, (text = readFresh(file)));
    return text;
  };

  return {
    root: root.endsWith('/') && root.length > 1 ? root.slice(0, -1) : root,
    files: tree.files,
    dirs: tree.dirs,
    truncated: tree.truncated,
    notes,
    has: (file) => fileSet.has(file),
    read,
    readJson: async (file) => {
      const text = await read(file);
      return text === undefined ? undefined : parseJsonc(text);
    },
    note: (message) => { if (!notes.includes(message)) notes.push(message); },
  };
}
