/**
 * Reading files under a project's `node_modules` (a Jest preset, a shared config package), which the walk
 * prunes and `ScanContext.read` therefore never serves. Bounded and kept inside the project:
 * - only relative paths with a `node_modules` segment, without `.`/`..` segments;
 * - the file's real path must stay inside the project root (a pnpm link into `node_modules/.pnpm/...` is
 *   fine; a link leading outside the root is refused, with a note);
 * - regular files up to the context's size cap, opened without following a final link;
 * - a per-scan budget of files read and of paths probed (a resolver tries several names per lookup).
 * Every path looked at is stamped like the context's other reads, so a rescan from a snapshot sees a
 * changed, added or removed package file: a found file by its path (and its real path when that differs),
 * a missing one by the nearest directory that exists (adding the file changes that directory).
 */
import { closeSync, constants, fstatSync, openSync, realpathSync } from 'node:fs';
import { readWhole } from './read-whole.ts';
import { lstatOrUndefined } from './incremental/stamper.ts';
import type { StatLike } from './incremental/snapshot.ts';
import { dirname } from '../rules/paths.ts';

export interface PackageReaderOptions {
  /** Real project root with a trailing slash. */
  readonly base: string;
  readonly maxFileBytes: number;
  /** Most package files read per scan. @default 64 */
  readonly maxFiles?: number;
  /** Most paths looked up per scan (found or not). @default 1024 */
  readonly maxProbes?: number;
  /** Records the stamp of a project-relative path, as the context does for its reads. */
  readonly stamp: (rel: string, stat: StatLike | undefined) => void;
  readonly onRead?: (file: string, once: boolean) => void;
}

/** A package file read: its text and where it really lies, relative to the project root. */
export interface PackageFile { readonly text: string; readonly path: string }

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** A reader of package files for one scan (results cached per path). */
export function packageReader({ base, maxFileBytes, maxFiles = 64, maxProbes = 1024, stamp, onRead }: PackageReaderOptions):
  (rel: string, note: (message: string) => void) => PackageFile | undefined {
  const cache = new Map<string, PackageFile | undefined>();
  let probes = 0;
  let files = 0;
  let note: (message: string) => void = () => {};
  return (rel, noteTo) => {
    if (cache.has(rel)) return cache.get(rel);
    note = noteTo;
    const parts = rel.split('/');
    if (!parts.includes('node_modules') || parts.some((p) => p === '' || p === '.' || p === '..')) return undefined;
    if (++probes > maxProbes) {
      if (probes === maxProbes + 1) note(`more than ${maxProbes} paths looked up under node_modules; the rest were not read`);
      return undefined;
    }
    const found = readOne(rel);
    cache.set(rel, found);
    return found;
  };

  function readOne(rel: string): PackageFile | undefined {
    const stat = lstatOrUndefined(base + rel);
    if (!stat) { stampMissing(rel); return undefined; }
    stamp(rel, stat);
    let real: string;
    try { real = realpathSync(base + rel); } catch { return undefined; }
    if (!real.startsWith(base)) {
      note(`${rel} leads outside the project (to ${real}); not read`);
      return undefined;
    }
    const path = real.slice(base.length);
    // A final link: its own stamp does not move when the file it names changes; the file's does.
    if (path !== rel) stamp(path, lstatOrUndefined(real));
    if (++files > maxFiles) {
      if (files === maxFiles + 1) note(`more than ${maxFiles} files read under node_modules; ${rel} and the rest were not read`);
      return undefined;
    }
    onRead?.(rel, false);
    const text = readRegular(real, maxFileBytes);
    if (text === undefined) {
      if (stat.size > maxFileBytes) note(`${rel} is larger than ${maxFileBytes} bytes; not read`);
      return undefined;
    }
    return { text, path };
  }

  /** Stamps the nearest existing directory above a missing path (by its real path, when inside the root). */
  function stampMissing(rel: string): void {
    for (let dir = dirname(rel); dir !== ''; dir = dirname(dir)) {
      const stat = lstatOrUndefined(base + dir);
      if (!stat) continue;
      let real: string;
      try { real = realpathSync(base + dir); } catch { return; }
      if (real.startsWith(base)) stamp(real.slice(base.length), lstatOrUndefined(real));
      return;
    }
    // No node_modules at all: the root's own stamp, as a read (`.`), since a walk that finds the same files
    // again (node_modules is pruned, so its creation is not among them) would not look further.
    stamp('.', lstatOrUndefined(base + '.'));
  }
}

/** Text of a regular file no larger than `maxBytes`, never through a final link; undefined otherwise. */
function readRegular(abs: string, maxBytes: number): string | undefined {
  let fd = -1;
  try {
    fd = openSync(abs, OPEN_FLAGS);
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > maxBytes) return undefined;
    return readWhole(fd, info.size);
  } catch {
    return undefined;
  } finally {
    if (fd !== -1) closeSync(fd);
  }
}
