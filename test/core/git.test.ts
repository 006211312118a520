import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { gitEnv, parseStatus, readGitState } from '../../src/core/git.ts';
import { call, makeTree, serve, spawnBin } from '../helpers/index.ts';
import { git, quietGitEnv as quiet } from '../helpers/git.ts';

// Git state through the real git executable, on real temp repositories.

/** A clone of a local bare repository, one commit pushed, one more committed but not pushed, and a dirty file. */
function repoAheadAndDirty(t: { after(fn: () => unknown): void }): { work: string; head: string } {
  const upstream = makeTree(t, {}, 'projdex-bare-');
  git(upstream, 'init', '--bare', '-b', 'main');
  const work = makeTree(t, { 'README.md': 'one\n' }, 'projdex-git-');
  git(work, 'init', '-b', 'main');
  git(work, 'remote', 'add', 'origin', upstream);
  git(work, 'add', '.');
  git(work, 'commit', '-m', 'one');
  git(work, 'push', '-u', 'origin', 'main');
  writeFileSync(join(work, 'README.md'), 'two\n');
  git(work, 'commit', '-am', 'two');
  writeFileSync(join(work, 'README.md'), 'three, not committed\n');
  return { work, head: git(work, 'rev-parse', 'HEAD').trim() };
}

suite('git state', () => {
  test('parseStatus reads branch, head, distance and dirtiness from porcelain v2', () => {
    assert.deepEqual(parseStatus('# branch.oid abc\n# branch.head main\n# branch.upstream origin/main\n# branch.ab +2 -3\n'),
      { branch: 'main', head: 'abc', dirty: false, ahead: 2, behind: 3 });
    assert.deepEqual(parseStatus('# branch.oid (initial)\n# branch.head (detached)\n? new.txt\n'),
      { branch: null, head: null, dirty: true, ahead: null, behind: null });
  });

  test('a clone with a commit ahead of its bare upstream and a modified file', async (t) => {
    const { work, head } = repoAheadAndDirty(t);
    const { state, note } = await readGitState(work);
    assert.equal(note, null);
    assert.equal(state?.branch, 'main');
    assert.equal(state?.head, head);
    assert.equal(state?.dirty, true);
    assert.equal(state?.ahead, 1);
    assert.equal(state?.behind, 0);
    const committed = Number(git(work, 'log', '-1', '--format=%ct').trim());
    assert.equal(state?.last_commit_at, committed);
    // Clean again once the change is committed: dirtiness follows the tree, not a cache.
    git(work, 'commit', '-am', 'three');
    const after = await readGitState(work);
    assert.equal(after.state?.dirty, false);
    assert.equal(after.state?.ahead, 2);
  });

  test('the last state given: its commit time is taken again while HEAD names the same commit, git log is not run', async (t) => {
    const { work } = repoAheadAndDirty(t);
    // A git that writes its subcommand to a log, then runs the real one.
    const bin = makeTree(t, {}, 'projdex-gitlog-');
    const calls = join(bin, 'calls');
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$4" >> '${calls}'\nexec git "$@"\n`, { mode: 0o755 });
    const counted = { git: join(bin, 'git') };
    const first = await readGitState(work, counted);
    assert.equal(readFileSync(calls, 'utf8'), 'status\nlog\n');
    // A known time that is not the commit's shows it was taken, not read again.
    const again = await readGitState(work, counted, { ...first.state!, last_commit_at: 7 });
    assert.equal(readFileSync(calls, 'utf8'), 'status\nlog\nstatus\n');
    assert.deepEqual(again.state, { ...first.state, last_commit_at: 7 });
    // A new commit: HEAD moved, so its time is read.
    git(work, 'commit', '-am', 'three');
    const moved = await readGitState(work, counted, { ...first.state!, last_commit_at: 7 });
    assert.equal(readFileSync(calls, 'utf8'), 'status\nlog\nstatus\nstatus\nlog\n');
    assert.equal(moved.state?.last_commit_at, Number(git(work, 'log', '-1', '--format=%ct').trim()));
    assert.notEqual(moved.state?.head, first.state?.head);
  });

  test('no repository, no git and a deadline are null with a note, never a throw', async (t) => {
    const plain = makeTree(t, { 'a.txt': 'x' });
    // GIT_CEILING_DIRECTORIES keeps git from finding a repository above the temp dir on this machine.
    const env = { ...gitEnv(process.env), GIT_CEILING_DIRECTORIES: join(plain, '..') };
    const none = await readGitState(plain, { env });
    assert.equal(none.state, null);
    assert.match(none.note ?? '', /^no git repository/);
    const missing = await readGitState(plain, { git: join(plain, 'no-such-git') });
    assert.equal(missing.state, null);
    assert.match(missing.note ?? '', /git executable was not found/);
    // A "git" that never answers: the deadline ends it.
    writeFileSync(join(plain, 'slow-git'), '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
    const slow = await readGitState(plain, { git: join(plain, 'slow-git'), timeoutMs: 200 });
    assert.equal(slow.state, null);
    assert.match(slow.note ?? '', /took longer than 200 ms/);
  });

  test('the environment git gets holds no token and nothing that redirects it', () => {
    const env = gitEnv({
      PATH: '/bin', HOME: '/home/u', PROJDEX_TOKEN: 'secret', GIT_DIR: '/elsewhere', GIT_INDEX_FILE: '/x',
      GIT_WORK_TREE: '/w', GIT_CEILING_DIRECTORIES: '/home/u',
    });
    assert.deepEqual(env, {
      LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', PATH: '/bin', HOME: '/home/u',
      GIT_CEILING_DIRECTORIES: '/home/u',
    });
  });

  test('a scan stores the state: GET /api/projects and /:id return it without running git again', async (t) => {
    const { work, head } = repoAheadAndDirty(t);
    const { url } = await serve(t);
    const created = await call(`${url}/api/projects`, 'POST', { name: 'repo', path: work });
    assert.deepEqual([created.body.git, created.body.git_note], [null, null], 'not read before a scan');
    assert.equal((await call(`${url}/api/projects/1/scan`, 'POST')).status, 200);
    const expected = { branch: 'main', head, dirty: true, ahead: 1, behind: 0 };
    const [listed] = (await call(`${url}/api/projects`)).body;
    assert.deepEqual({ ...listed.git, last_commit_at: undefined }, { ...expected, last_commit_at: undefined });
    assert.equal(typeof listed.git.last_commit_at, 'number');
    assert.equal(listed.git_note, null);
    // Stored: a commit made now shows only after the next scan.
    git(work, 'commit', '-am', 'three');
    assert.equal((await call(`${url}/api/projects/1`)).body.git.dirty, true);
    await call(`${url}/api/projects/1/scan`, 'POST');
    assert.deepEqual((await call(`${url}/api/projects/1`)).body.git.dirty, false);
  });

  test('the user\'s GIT_CEILING_DIRECTORIES holds: a folder of a repository above it is in no repository',
    async (t) => {
      // A project folder inside a repository (a home directory kept in git, say), and one in no repository.
      const home = makeTree(t, { 'dotfiles/.bashrc': '', 'app/package.json': '{}' }, 'projdex-home-');
      git(home, 'init', '-b', 'main');
      git(home, 'add', '.');
      git(home, 'commit', '-m', 'home');
      const plain = makeTree(t, { 'package.json': '{}' });
      type Found = { git: unknown; git_note: string | null };
      const ask = async (env: Record<string, string>): Promise<Found[]> => {
        const server = spawnBin(t, ['--port', '0', '--data-dir', makeTree(t)], env);
        const [, url] = await server.waitFor(/listening on (http:\/\/\S+)/);
        const found = [];
        for (const path of [join(home, 'app'), plain]) {
          const { body } = await call(`${url}/api/projects`, 'POST', { name: path, path });
          assert.deepEqual([body.git, body.git_note], [null, null], 'nothing read before a scan');
          assert.equal((await call(`${url}/api/projects/${body.id}/scan`, 'POST')).status, 200);
          found.push((await call(`${url}/api/projects/${body.id}`)).body);
        }
        server.child.kill('SIGTERM');
        await server.exit();
        return found;
      };
      // Without a ceiling the folder reads as the repository above it.
      const [inside] = await ask({ GIT_CEILING_DIRECTORIES: '' });
      assert.equal((inside!.git as { branch: string }).branch, 'main');
      // A ceiling at the repository's folder: git does not look there, so neither project is in one.
      const ceiling = [home, join(plain, '..')].join(':');
      for (const project of await ask({ GIT_CEILING_DIRECTORIES: ceiling })) {
        assert.equal(project.git, null);
        assert.match(project.git_note ?? '', /^no git repository: the project is not inside a git working/);
      }
    });
});
