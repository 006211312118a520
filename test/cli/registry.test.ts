import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { makeTree } from '../helpers/index.ts';
import { run } from '../helpers/cli.ts';

// `projdex export > file.json` from one data dir, `projdex import file.json` into another: the real bin.

suite('projdex export / import', () => {
  test('the second data dir ends with the same registry, and a path not on the machine is reported', async (t) => {
    const root = makeTree(t, { 'code/web/package.json': '{}', 'code/api/go.mod': 'module api\n' });
    const first = ['--data-dir', join(root, 'one')];
    const second = ['--data-dir', join(root, 'two')];
    assert.equal((await run(['add', join(root, 'code/web'), '--name', 'web', ...first])).code, 0);
    assert.equal((await run(['add', join(root, 'code/api'), ...first])).code, 0);
    const exported = await run(['export', ...first]);
    assert.equal(exported.code, 0, exported.stderr);
    const document = JSON.parse(exported.stdout);
    document.projects.push({ name: 'elsewhere', path: join(root, 'not-here') });
    const file = join(root, 'registry.json');
    writeFileSync(file, JSON.stringify(document));

    const imported = await run(['import', file, ...second]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(imported.stdout, [
      `added #1 web  ${root}/code/web`, `added #2 api  ${root}/code/api`,
      `not here: elsewhere  ${root}/not-here (Path does not exist)`,
      '2 added, 0 updated, 1 not on this machine, 0 settings written', ''].join('\n'));
    const again = JSON.parse((await run(['export', ...second])).stdout);
    const original = JSON.parse(exported.stdout);
    assert.deepEqual({ ...again, exported_at: 0 }, { ...original, exported_at: 0 });
  });

  test('a file that is not JSON, a missing file and no file are clear errors', async (t) => {
    const root = makeTree(t, { 'bad.json': 'not json' });
    const data = ['--data-dir', join(root, 'data')];
    const bad = await run(['import', join(root, 'bad.json'), ...data]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^ERROR: .*bad\.json is not JSON; write it with `projdex export > /);
    const missing = await run(['import', join(root, 'nope.json'), ...data]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^ERROR: Cannot read .*nope\.json: ENOENT/);
    const none = await run(['import', ...data]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^ERROR: import needs a file/);
  });
});
