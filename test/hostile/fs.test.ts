import assert from 'node:assert/strict';
import { chmodSync, promises as fsp, realpathSync, renameSync, symlinkSync, unlinkSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { walk, walkPart } from '../../src/scan/walk/walk.ts';
import { openStore } from '../../src/core/store/store.ts';
import { call, makeTree, serve } from '../helpers/index.ts';

suite('a tree that changes or fails under the scan', () => {
  test('a directory swapped for a link to outside between its listing and its read is not walked', async (t) => {
    const root = makeTree(t, { 'a.test.js': '', 'sub/b.test.js': '' });
    const outside = makeTree(t, { 'secret.test.js': '', 'deeper/x.test.js': '' });
    const fs = {
      realpath: (p: string) => fsp.realpath(p),
      async readdir(path: string, options: { withFileTypes: true }): Promise<Dirent[]> {
        if (path === `${root}/sub/`) {
          // The swap happens right before the read, as an attacker racing the walk would do it.
          renameSync(join(root, 'sub'), join(root, 'sub-old'));
          symlinkSync(outside, join(root, 'sub'));
        }
        return fsp.readdir(path, options);
      },
    };
    const tree = await walk(root, { fs });
    assert.deepEqual([...tree.files].sort(), ['a.test.js']);
    assert.deepEqual(tree.unreadable, ['sub']);
    assert.equal(tree.rootError, null);
  });

  test('the default (synchronous) walk never goes through a directory or an ancestor swapped for a link after its parent was listed', async (t) => {
    const root = makeTree(t, { 'a.test.js': '', 'sub/b.test.js': '', 'deep/mid/c.test.js': '', 'deep/d.test.js': '' });
    const outside = makeTree(t, { 'secret.test.js': '', 'mid/x.test.js': '' });
    let listed = 0;
    // onProgress runs right after each listing that was kept: the root's, then 'deep' ('sub' is refused).
    const tree = await walk(root, {
      onProgress: () => {
        listed++;
        if (listed === 1) {
          renameSync(join(root, 'sub'), join(root, 'sub-old'));
          symlinkSync(outside, join(root, 'sub'));
        }
        if (listed === 2) {
          // 'deep' was listed; its child 'mid' is still queued, and its path now leads through a link.
          renameSync(join(root, 'deep'), join(root, 'deep-old'));
          symlinkSync(outside, join(root, 'deep'));
        }
      },
    });
    // 'sub' is a link when opened: refused. 'mid' is opened through the directory the walk listed (held
    // open, now 'deep-old', inside the project), not through the link: what it lists is 'deep/mid' as walked.
    assert.deepEqual([...tree.files].sort(), ['a.test.js', 'deep/d.test.js', 'deep/mid/c.test.js']);
    assert.deepEqual([...tree.unreadable].sort(), ['sub']);
  });

  test('a directory opened by its path (a subtree handed to another part of the walk) is refused behind a swapped ancestor', async (t) => {
    const root = realpathSync(makeTree(t, { 'a.test.js': '', 'deep/mid/c.test.js': '', 'deep/mid/low/e.test.js': '' }));
    const outside = makeTree(t, { 'mid/x.test.js': '', 'mid/low/y.test.js': '' });
    renameSync(join(root, 'deep'), join(root, 'deep-old'));
    symlinkSync(outside, join(root, 'deep'));
    // How walk-split.ts starts a part: the queued directories as the first part listed them.
    const part = await walkPart(root, { start: [{ abs: `${root}/deep/mid/`, rel: 'deep/mid', depth: 2, dev: NaN, ino: NaN }] });
    assert.deepEqual(part.files, []);
    assert.deepEqual(part.unreadable, ['deep/mid']);
  });

  test('a directory or an ancestor swapped for a link just before its read and back just after lists nothing outside', async (t) => {
    const root = makeTree(t, { 'a.test.js': '', 'sub/b.test.js': '', 'deep/mid/c.test.js': '' });
    const outside = makeTree(t, { 'secret.test.js': '', 'mid/x.test.js': '' });
    // Which directory is swapped while which one is read: `sub` itself, and `deep` while `deep/mid` is read.
    const swapped: Record<string, string> = { [`${root}/sub/`]: 'sub', [`${root}/deep/mid/`]: 'deep' };
    const target: Record<string, string> = { sub: outside, deep: outside };
    const raced: string[] = [];
    const tree = await walk(root, {
      onListing: (abs, listed) => {
        const name = swapped[abs];
        if (name === undefined) return;
        if (!listed) {
          renameSync(join(root, name), join(root, `${name}-away`));
          symlinkSync(target[name]!, join(root, name));
        } else {
          unlinkSync(join(root, name));
          renameSync(join(root, `${name}-away`), join(root, name));
        }
        raced.push(`${name} ${listed ? 'back' : 'out'}`);
      },
    });
    assert.deepEqual(raced.sort(), ['deep back', 'deep out', 'sub back', 'sub out'], 'each swap happened around a read');
    assert.deepEqual(tree.files.filter((f) => /secret|x\.test/.test(f)), []);
    assert.deepEqual([...tree.files].sort(), ['a.test.js', 'deep/mid/c.test.js', 'sub/b.test.js']);
  });

  test('a root that cannot be listed is reported as such, never as an empty tree', async (t) => {
    const root = makeTree(t, { 'a.test.js': '' });
    const fs = { readdir: () => Promise.reject(Object.assign(new Error('too many open files'), { code: 'EMFILE' })) };
    const tree = await walk(root, { fs });
    assert.equal(tree.rootError, 'EMFILE');
    assert.deepEqual(tree.unreadable, ['']);
  });

  test('saveScan keeps the rows and ports under unreadable directories, with their ids', (t) => {
    const store = openStore(':memory:');
    t.after(() => store.close());
    const { id } = store.insertProject({ name: 'p', path: '/p' })!;
    store.saveScan(id, {
      tests: [{ file: 'a.test.js', framework: 'jest' }, { file: 'locked/b.test.js', framework: 'jest' }, { file: 'lockedx/c.test.js', framework: 'jest' }],
      ports: [{ port: 3000, script_name: null, config_source: 'locked/.env' }, { port: 4000, script_name: null, config_source: '.env' }],
      framework: null,
    });
    const before = store.listTests(id);
    store.saveScan(id, { tests: [{ file: 'a.test.js', framework: 'jest' }], ports: [], framework: null, unreadable: ['locked'] });
    const after = store.listTests(id);
    assert.deepEqual(after.map((x) => [x.id, x.file_path]), before.filter((x) => x.file_path !== 'lockedx/c.test.js').map((x) => [x.id, x.file_path]));
    assert.deepEqual(store.listPorts(id).map((p) => p.config_source), ['locked/.env']);
  });

  test('a project root that cannot be read answers 409 and changes nothing', { skip: process.getuid?.() === 0 ? 'root reads any directory' : false }, async (t) => {
    const root = makeTree(t, { 'package.json': '{"devDependencies":{"vitest":"3"}}', 'a.test.ts': '' });
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'p', path: root });
    assert.equal((await call(`${url}/api/projects/1/scan`, 'POST')).status, 200);
    chmodSync(root, 0o000);
    t.after(() => chmodSync(root, 0o700));
    const res = await call(`${url}/api/projects/1/scan`, 'POST');
    assert.equal(res.status, 409);
    assert.match(res.body.error, /cannot be read.*nothing was changed/);
    assert.deepEqual((await call(`${url}/api/projects/1/tests`)).body.map((x: { file_path: string }) => x.file_path), ['a.test.ts']);
  });
});

suite('a big scan is saved in slices', () => {
  const tests = (n: number, dir: string) => Array.from({ length: n }, (_, i) => ({ file: `${dir}/t${i}.test.js`, framework: 'jest' as const, cases: i % 3 }));

  test('same rows and ids as one transaction: kept files keep their id, gone ones are swept, unreadable dirs kept', async (t) => {
    const store = openStore(':memory:');
    t.after(() => store.close());
    const { id } = store.insertProject({ name: 'p', path: '/p' })!;
    await store.saveScanSliced(id, { tests: [...tests(3000, 'a'), ...tests(10, 'locked')], ports: [{ port: 1, script_name: null, config_source: 'x' }], framework: 'vite' });
    const first = new Map(store.listTests(id).map((x) => [x.file_path, x.id]));
    assert.equal(first.size, 3010);
    const next = [...tests(1500, 'a'), ...tests(2000, 'b')];
    assert.equal(await store.saveScanSliced(id, { tests: next, ports: [], framework: null, unreadable: ['locked'] }), true);
    const after = store.listTests(id);
    assert.equal(after.length, 1500 + 2000 + 10);
    for (const row of after) if (first.has(row.file_path)) assert.equal(row.id, first.get(row.file_path));
    assert.ok(after.every((r) => !/^a\/t(1[5-9]\d\d|2\d\d\d)\.test\.js$/.test(r.file_path)), 'gone files swept');
    assert.deepEqual(store.listPorts(id), []);
    assert.equal(store.getProject(id)!.framework, 'vite');
  });

  test('a project deleted while its save runs ends the save with false, and nothing is left behind', async (t) => {
    const store = openStore(':memory:');
    t.after(() => store.close());
    const { id } = store.insertProject({ name: 'p', path: '/p' })!;
    const saving = store.saveScanSliced(id, { tests: tests(20_000, 'a'), ports: [], framework: null });
    await new Promise((r) => setImmediate(r));
    assert.equal(store.deleteProject(id), true);
    assert.equal(await saving, false);
    assert.deepEqual(store.listTests(id), []);
  });

  test('a save that fills the database in its slices leaves the old list, and no reader ever sees a new row', async (t) => {
    const store = openStore(':memory:', { maxBytes: 1024 * 1024 });
    t.after(() => store.close());
    const { id } = store.insertProject({ name: 'p', path: '/p' })!;
    await store.saveScanSliced(id, { tests: tests(1500, 'old'), ports: [], framework: null });
    const before = store.listTests(id).map((x) => [x.id, x.file_path]);
    // Far more rows than one 6 ms slice writes, and than 1 MiB holds: slices commit, then one fails.
    const saving = store.saveScanSliced(id, { tests: [...tests(1500, 'old'), ...tests(40_000, 'new')], ports: [], framework: null });
    let settled = false;
    const outcome = saving.then(() => 'saved', (error: Error) => error.message).finally(() => { settled = true; });
    // Read through the cached list body every turn, as GET /tests does, while the slices go in and while
    // the failed save discards them: the list stays the old one throughout.
    let turns = 0;
    for (; turns < 100_000 && !settled; turns++) {
      assert.equal(JSON.parse(String(store.testsJson(id))).length, before.length);
      await new Promise((r) => setImmediate(r));
    }
    assert.ok(turns > 1, 'the save spanned several turns');
    assert.match(await outcome, /database or disk is full/);
    assert.deepEqual(store.listTests(id).map((x) => [x.id, x.file_path]), before);
    assert.deepEqual(JSON.parse(String(store.testsJson(id))).map((x: { id: number; file_path: string }) => [x.id, x.file_path]), before);
  });
});

suite('file names that are not valid UTF-8', () => {
  test('stay distinct rows; a directory so named is named in a note, not walked under a wrong name', async (t) => {
    const { mkdirSync: mkdir, writeFileSync: write } = await import('node:fs');
    const root = makeTree(t, { 'package.json': '{"devDependencies":{"vitest":"3"}}', 'ok.test.ts': '' });
    const path = (...parts: Array<string | number[]>): Buffer => Buffer.concat([Buffer.from(root + '/'), ...parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p)))]);
    write(path('a', [0xff], '.test.ts'), '');
    write(path('a', [0xfe], '.test.ts'), '');
    mkdir(path('d', [0xc3]));
    write(path('d', [0xc3], '/b.test.ts'), '');
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'p', path: root });
    const res = await call(`${url}/api/projects/1/scan`, 'POST');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.tests.map((x: { file_path: string }) => x.file_path), ['a\uFFFD[fe].test.ts', 'a\uFFFD[ff].test.ts', 'ok.test.ts']);
    assert.ok(res.body.notes.some((n: string) => /1 directory was not scanned: the name is not valid UTF-8 \(d\uFFFD\[c3\];/.test(n)), JSON.stringify(res.body.notes));
  });
});

suite('a walk cut short by a cap', () => {
  test('keeps the stored rows of the directories it did not reach', async (t) => {
    const { createScanner } = await import('../../src/core/scanner.ts');
    const files: Record<string, string> = { 'package.json': '{"devDependencies":{"vitest":"3"}}' };
    for (let d = 0; d < 6; d++) for (let f = 0; f < 3; f++) files[`d${d}/f${f}.test.ts`] = '';
    const root = makeTree(t, files);
    const store = openStore(':memory:');
    const full = createScanner(store);
    const capped = createScanner(store, { maxEntries: 8 });
    t.after(async () => { await full.close(); await capped.close(); store.close(); });
    const project = store.insertProject({ name: 'p', path: root })!;
    assert.equal((await full.scanProject(project)).testsFound, 18);
    const ids = store.listTests(project.id).map((x) => x.id);
    const outcome = await capped.scanProject(project);
    assert.match(outcome.truncated ?? '', /entry limit of 8/);
    assert.deepEqual(store.listTests(project.id).map((x) => x.id), ids);
  });
});

suite('a package.json that cannot be read', () => {
  test('keeps the tests and ports stored for its package, with their ids and a note; the rest is rescanned', async (t) => {
    const vitest = JSON.stringify({ scripts: { dev: 'vite --port 5190', test: 'vitest' }, devDependencies: { vitest: '^3', vite: '^6' } });
    const root = makeTree(t, {
      'package.json': JSON.stringify({ private: true, workspaces: ['web', 'api'] }),
      'web/package.json': vitest, 'web/a.test.ts': "test('a', () => {});",
      'api/package.json': vitest.replace('5190', '5191'), 'api/b.test.ts': "test('b', () => {});",
    });
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'p', path: root });
    const first = await call(`${url}/api/projects/1/scan`, 'POST');
    const rows = (body: { tests: Array<{ id: number; file_path: string }> }) => body.tests.map((x) => [x.id, x.file_path]);
    assert.deepEqual(rows(first.body).map(([, f]) => f), ['api/b.test.ts', 'web/a.test.ts']);
    assert.deepEqual(first.body.ports.map((p: { port: number }) => p.port), [5190, 5191]);

    // web's package.json is cut short mid-edit; api loses its test file.
    const { writeFileSync, rmSync } = await import('node:fs');
    writeFileSync(join(root, 'web/package.json'), vitest.slice(0, 20));
    rmSync(join(root, 'api/b.test.ts'));
    const second = await call(`${url}/api/projects/1/scan`, 'POST');
    assert.equal(second.status, 200);
    assert.deepEqual(rows(second.body), rows(first.body).filter(([, f]) => f === 'web/a.test.ts'));
    assert.deepEqual(second.body.ports.map((p: { port: number }) => p.port), [5190, 5191]);
    assert.match(second.body.notes.join('\n'), /web\/package\.json could not be read as a JSON object: the tests and ports found before under web\/ are kept/);

    // Readable again: the package is scanned as before, same id.
    writeFileSync(join(root, 'web/package.json'), vitest);
    const third = await call(`${url}/api/projects/1/scan`, 'POST');
    assert.deepEqual(rows(third.body), rows(second.body));
  });
});
