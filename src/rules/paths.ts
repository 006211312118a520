/**
 * Helpers for the relative POSIX paths a scan works with (`src/a.test.ts`, `''` for the root), shared
 * by test discovery and ports. String slicing, not node:path: the paths never hold `\` or a drive.
 */

/** `a/b/c.txt` -> `c.txt`. */
export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** `a/b/c.txt` -> `a/b`; a top-level entry gives `''`. */
export function dirname(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

/**
 * Joins relative paths, treating `''` as the root and resolving `.`/`..` segments and extra slashes.
 *
 * @example
 * joinPath('pkg', './test/', '../spec/a.js'); // 'pkg/spec/a.js'
 */
export function joinPath(...parts: string[]): string {
  const out: string[] = [];
  for (const part of parts) {
    for (const seg of part.split('/')) {
      if (seg === '' || seg === '.') continue;
      if (seg === '..') out.pop();
      else out.push(seg);
    }
  }
  return out.join('/');
}
