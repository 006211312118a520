import assert from 'node:assert/strict';
import { chmodSync, promises as fsp, renameSync, symlinkSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { walk } from '../src/scan/walk.ts';
import { openStore } from '../src/store.ts';
import { call, makeTree, serve } from './helpers.ts';

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
