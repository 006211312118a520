import {
  closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync, type Stats,
} from 'node:fs';

/**
 * The text of an open regular file of `size` bytes (its stat size), or undefined when it grew since the stat.
 * Why one byte of room past the size: a read that fills it tells a file that grew from one read whole.
 * Once `size` bytes are in, a read that asked for more and got no more met the end of the file: no second
 * read to see 0 come back (one system call less per file read; a file growing after that is read as it was).
 */
export function readWhole(fd: number, size: number): string | undefined {
  const buffer = Buffer.allocUnsafe(size + 1);
  let length = 0;
  for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0;) {
    length += n;
    if (length === size) break;
  }
  return length > size ? undefined : buffer.toString('utf8', 0, length);
}

// O_NOFOLLOW: a config file that is a symlink (say, to /dev/zero) is never opened through the link.
// O_NONBLOCK: opening a FIFO named like a config file must not hang the event loop.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** {@link readChecked}: the file could not be opened (gone, a link, no permission). */
export const NOT_OPENED = 0;
/** {@link readChecked}: a folder on the file's path became a link since the walk; nothing was read. */
export const CROSSED = 1;

/**
 * The text of the walked file `file` (relative to `base`, whose real path is `realBase`), checked: opened
 * without following a link, refused when the open file is not the one at that path, read only when it is a
 * regular file of at most `maxBytes`. `stamp` gets its stat before the bytes are read (a write in between
 * leaves the stamp behind the text). Undefined when opened but not read. Used on the scanning thread and
 * on the helper thread, which reads a first scan's test files ahead (context.ts `readAhead`).
 */
export function readChecked(
  base: string, realBase: string, file: string, maxBytes: number, stamp?: (file: string, info: Stats) => void,
): string | undefined | typeof NOT_OPENED | typeof CROSSED {
  let fd = -1;
  try {
    fd = openSync(base + file, OPEN_FLAGS);
    // O_NOFOLLOW guards the last name only: a folder swapped for a link since the walk is refused here.
    if (!openedAt(fd, realBase + file)) return CROSSED;
    const info = fstatSync(fd);
    stamp?.(file, info);
    if (!info.isFile() || info.size > maxBytes) return undefined;
    return readWhole(fd, info.size);
  } catch {
    return fd === -1 ? NOT_OPENED : undefined;
  } finally {
    if (fd !== -1) closeSync(fd);
  }
}

/**
 * Whether the open file `fd` is the one at `path` with no link crossed on the way: Linux names an open
 * file's real path at /proc/self/fd. Elsewhere (no /proc) the real path is looked up after the open.
 */
function openedAt(fd: number, path: string): boolean {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`) === path;
  } catch {
    try { return realpathSync(path) === path; } catch { return false; }
  }
}
