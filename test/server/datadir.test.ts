import assert from 'node:assert/strict';
import { chownSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { AlreadyRunningError, DataDirError, prepareDataDir } from '../../src/server/datadir.ts';
import { startServer } from '../../src/server/server.ts';
import { makeTree, memoryLogger } from '../helpers/index.ts';

suite('data dir', () => {
  test('two servers starting at once on one data dir: exactly one wins, the other rejects with its URL', async (t) => {
    const dataDir = join(makeTree(t), 'data');
    const results = await Promise.allSettled([0, 1, 2].map(() => startServer({ port: 0, dataDir, logger: memoryLogger() })));
    const won = results.filter((r) => r.status === 'fulfilled');
    assert.equal(won.length, 1);
    const winner = won[0]!.value;
    t.after(() => winner.close());
    for (const r of results.filter((x) => x.status === 'rejected')) {
      assert.ok(r.reason instanceof AlreadyRunningError, String(r.reason));
      assert.equal(r.reason.message, `projdex is already running at ${winner.url} (pid ${process.pid})`);
    }
    assert.equal(JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8')).url, winner.url);
    await winner.close();
    assert.equal(existsSync(join(dataDir, 'server.json')), false);
  });

  test('a data dir owned by another user is refused with a sentence naming --data-dir', { skip: process.getuid?.() === 0 ? false : 'needs root to chown' }, (t) => {
    const dir = join(makeTree(t), 'theirs');
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, 4242, 4242);
    assert.throws(() => prepareDataDir(dir), (error: unknown) => error instanceof DataDirError && error.code === 'DATA_DIR_OWNER'
      && error.message === `The data dir ${dir} belongs to another user (uid 4242); choose one of your own with --data-dir DIR.`);
  });
});
