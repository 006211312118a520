import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Minimal view of node:test's TestContext that the helpers need, so they work in hooks too. */
interface AfterHook { after(fn: () => unknown): void }

/**
 * Creates a fresh temp directory (real path, so symlinked /tmp does not matter), removed after the test.
 * `files` maps relative POSIX paths to contents; a path ending in '/' makes an empty directory.
 */
export function makeTree(t: AfterHook, files: Record<string, string> = {}, prefix = 'projdex-'): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  writeTree(root, files);
  return root;
}

/** Writes `files` (relative path -> content; trailing '/' = directory) below `root`. */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(root, rel);
    if (rel.endsWith('/')) {
      mkdirSync(abs, { recursive: true });
    } else {
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, content);
    }
  }
}

/** Absolute path of a committed fixture project under test/fixtures/. */
export function fixture(name: string): string {
  return join(import.meta.dirname, 'fixtures', name);
}
