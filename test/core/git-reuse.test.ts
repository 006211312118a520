import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { createScanner } from '../../src/core/scanner.ts';
import { openStore } from '../../src/core/store/store.ts';
import { makeTree } from '../helpers/index.ts';
import { git, quietGitEnv as quiet } from '../helpers/git.ts';

// A scan's git reading skips git's search for untracked files only when the scan's quick check and `.git`
// show it would find what it found last time. Real scans, a real repository, the real git behind a wrapper
// that logs which status each scan asked for.

suite('git reading reuse', () => {
  test('untracked files are listed again when a directory or .git moved, or the listing aged', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29' } }),
      'src/a.test.js': "test('a', () => {});\n",
      'README.md': 'one\n',
      '.gitignore': 'node_modules/\n',
    });
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'add', '.');
    git(root, 'commit', '-q', '-m', 'one');
    const bin = makeTree(t, {}, 'projdex-gitlog-');
    const calls = join(bin, 'calls');
    // Logs the subcommand and its untracked mode (`-c x --no-optional-locks status ... -u…`).
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$4 $7" >> '${calls}'\nexec git "$@"\n`, { mode: 0o755 });
    let offset = 0;
    const store = openStore(':memory:');
    // Stamps are trusted at once (racyMs 0): the tree and .git were written just now.
    const scanner = createScanner(store, { racyMs: 0 }, {}, {
      git: { git: join(bin, 'git'), env: quiet },
      gitReuse: { racyMs: 0, untrackedMaxAgeMs: 60_000, now: () => Date.now() + offset },
    });
    t.after(async () => { await scanner.close(); store.close(); });
    const project = store.insertProject({ name: 'p', path: root })!;
    let seen = 0;
    /** Scans; the statuses git ran for it (`normal`: untracked listed, `no`: tracked only) and `dirty`. */
    const scan = async (full = false): Promise<{ asked: string[]; dirty: boolean | undefined }> => {
      const outcome = await scanner.scanProject(store.getProject(project.id)!, { full });
      await scanner.settled();
      const lines = readFileSync(calls, 'utf8').split('\n').filter((line) => line.startsWith('status '));
      // Sorted: two statuses run at once log in whichever order their shells start.
      const asked = lines.slice(seen).map((line) => line.replace('status --untracked-files=', '')).sort();
      seen = lines.length;
      return { asked, dirty: outcome.project.git?.dirty };
    };

    assert.deepEqual(await scan(), { asked: ['normal'], dirty: false });
    assert.deepEqual(await scan(), { asked: ['no'], dirty: false }, 'nothing moved');
    // A tracked file edited in place moves no directory: the tracked read sees it.
    writeFileSync(join(root, 'README.md'), 'two\n');
    assert.deepEqual(await scan(), { asked: ['no'], dirty: true });
    writeFileSync(join(root, 'README.md'), 'one\n');
    assert.deepEqual((await scan()).dirty, false);
    // A new file moves its directory: listed again, once the quick check said so.
    writeFileSync(join(root, 'src/notes.txt'), 'x\n');
    assert.deepEqual(await scan(), { asked: ['no', 'normal'], dirty: true });
    assert.deepEqual(await scan(), { asked: ['no'], dirty: true }, 'the untracked file still counts');
    rmSync(join(root, 'src/notes.txt'));
    assert.deepEqual((await scan()).asked, ['no', 'normal']);
    assert.equal((await scan()).dirty, false);
    // A commit rewrites the index: everything is read at once, beside the scan.
    writeFileSync(join(root, 'src/b.test.js'), "test('b', () => {});\n");
    git(root, 'add', '.');
    git(root, 'commit', '-q', '-m', 'two');
    assert.deepEqual(await scan(), { asked: ['normal'], dirty: false });
    // A full scan reads everything too.
    assert.deepEqual((await scan(true)).asked, ['normal']);
    // Ignored: node_modules is new (its parent moved), and git ignores it.
    mkdirSync(join(root, 'node_modules/dep'), { recursive: true });
    writeFileSync(join(root, 'node_modules/dep/index.js'), '\n');
    assert.deepEqual(await scan(), { asked: ['no', 'normal'], dirty: false });
    assert.deepEqual((await scan()).asked, ['no']);
    // What the walk cannot see: a folder it skips that git does not ignore. Found once the reading ages.
    writeFileSync(join(root, '.gitignore'), '');
    git(root, 'commit', '-q', '-am', 'track node_modules');
    git(root, 'add', 'node_modules');
    git(root, 'commit', '-q', '-m', 'vendored');
    assert.deepEqual(await scan(), { asked: ['normal'], dirty: false });
    writeFileSync(join(root, 'node_modules/dep/extra.js'), '\n');
    assert.deepEqual(await scan(), { asked: ['no'], dirty: false }, 'a limit: within the age');
    offset = 60_000;
    assert.deepEqual(await scan(), { asked: ['normal'], dirty: true });
    assert.deepEqual((await scan()).asked, ['no'], 'the clock did not move since that reading');
  });

  test('a project inside a bigger repository is read whole (git sees what the walk does not)', async (t) => {
    const repo = makeTree(t, { 'app/package.json': '{}', 'other/x.txt': 'x\n' });
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'one');
    const store = openStore(':memory:');
    const scanner = createScanner(store, { racyMs: 0 }, {}, { git: { env: quiet }, gitReuse: { racyMs: 0 } });
    t.after(async () => { await scanner.close(); store.close(); });
    const project = store.insertProject({ name: 'app', path: join(repo, 'app') })!;
    const scan = async (): Promise<boolean | undefined> => {
      const outcome = await scanner.scanProject(store.getProject(project.id)!);
      await scanner.settled();
      return outcome.project.git?.dirty;
    };
    assert.equal(await scan(), false);
    assert.equal(await scan(), false);
    // Outside the project: no directory the scan keeps moved, yet git counts it.
    writeFileSync(join(repo, 'other/new.txt'), 'x\n');
    assert.equal(await scan(), true);
  });
});
