import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { makeTree } from '../helpers/index.ts';
import { portRange, run } from '../helpers/cli.ts';

// A data dir projdex cannot use is one `ERROR:` line naming the path, and a non-zero exit: never a stack
// trace. These tests run as any user, root included, so they use paths nobody can write: /proc and /sys
// (whose files and folders are made by the kernel only) and a file where a folder is expected.

const STACK = /\n\s+at |node:internal|^\s*\^/m;

async function refused(args: readonly string[], path: string): Promise<string> {
  const result = await run(args, { PROJDEX_PORT_RANGE: portRange() });
  const what = `projdex ${args.join(' ')}: ${result.stderr}`;
  assert.equal(result.signal, null, `${what} (killed at the deadline: it hung)`);
  assert.equal(result.code, 1, what);
  assert.equal(result.stdout, '', what);
  assert.match(result.stderr, /^ERROR: [^\n]+\n$/, `one line: ${what}`);
  assert.ok(result.stderr.includes(path), `names ${path}: ${what}`);
  assert.doesNotMatch(result.stderr, STACK, what);
  return result.stderr;
}

/** Runs the cases side by side (each child has its own deadline) and checks each. */
async function all(cases: ReadonlyArray<readonly [args: readonly string[], path: string, pattern: RegExp]>): Promise<void> {
  const lines = await Promise.all(cases.map(([args, path]) => refused(args, path)));
  lines.forEach((line, k) => assert.match(line, cases[k]![2], cases[k]![0].join(' ')));
}

suite('a data dir that cannot be used is one clear line', { skip: process.platform !== 'linux' && 'uses /proc and /sys' }, () => {
  test('under /proc, where Node\'s recursive mkdir never returns: fails at once, for ls and serve', async () => {
    const made = /^ERROR: Cannot create the data dir \S+: that file system does not allow creating anything there; choose another with --data-dir DIR\.\n$/;
    await all([
      [['ls', '--data-dir', '/proc/self/x'], '/proc/self/x', made],
      [['--data-dir', '/proc/self/x'], '/proc/self/x', made],
      [['ls', '--data-dir', '/proc/projdex-data/a/b'], '/proc/projdex-data/a/b', made],
    ]);
  });

  test('folders that take no new file (/proc, /sys), a database that is a folder or not a database', async (t) => {
    const root = makeTree(t);
    mkdirSync(join(root, 'folder'), { mode: 0o700 });
    mkdirSync(join(root, 'folder', 'projdex.db'));
    mkdirSync(join(root, 'junk'), { mode: 0o700 });
    writeFileSync(join(root, 'junk', 'projdex.db'), 'not sqlite at all, but long enough to be read as a header.....');
    // Owned by root: another user is told so; root is told the file cannot be made.
    const system = (dir: string): RegExp => new RegExp(`^ERROR: (Cannot open the database ${dir}/projdex\\.db for writing: |The data dir ${dir} )`);
    await all([
      [['ls', '--data-dir', '/proc'], '/proc', system('/proc')],
      [['ls', '--data-dir', '/sys'], '/sys', system('/sys')],
      [['ls', '--data-dir', join(root, 'folder')], join(root, 'folder'), /projdex\.db is not a regular file/],
      [['ls', '--data-dir', join(root, 'junk')], join(root, 'junk', 'projdex.db'), /is damaged/],
      [['--data-dir', join(root, 'junk')], join(root, 'junk', 'projdex.db'), /is damaged/],
    ]);
  });
});
