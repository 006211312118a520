import assert from 'node:assert/strict';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { makeTree, runBin, spawnBin } from '../helpers/index.ts';
import { freePort } from '../helpers/processes.ts';

// `projdex run`, `ps` and `kill` through the real bin, with no server running (each command runs its own).

function alive(pid: number): boolean {
  try { process.kill(-pid, 0); return true; } catch { return false; }
}

suite('projdex run / ps / kill', { skip: process.platform !== 'linux' && 'checks process groups' }, () => {
  test('run prints the URL and follows output; Ctrl-C leaves it running; ps lists it; kill stops its group', async (t) => {
    const port = await freePort();
    const root = makeTree(t, {
      'web/package.json': JSON.stringify({ scripts: { dev: `PORT=${port} node server.js` } }),
      'web/server.js': "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready on ' + process.env.PORT));\n",
    });
    const data = ['--data-dir', join(root, 'data')];
    assert.equal((await runBin(t, ['add', join(root, 'web'), ...data])).code, 0);
    assert.equal((await runBin(t, ['scan', '1', ...data])).code, 0);

    const running = spawnBin(t, ['run', '1', ...data]);
    const [, pid] = await running.waitFor(/^started #1 dev of #1 web \(pid (\d+)\): PORT=\d+ node server\.js\n/);
    t.after(() => { try { process.kill(-Number(pid), 'SIGKILL'); } catch { /* gone */ } });
    await running.waitFor(new RegExp(`ready on ${port}\\n`));
    await running.waitFor(new RegExp(`${port}: http://127\\.0\\.0\\.1:${port}/\\n`));
    running.child.kill('SIGINT');
    assert.deepEqual(await running.exit(), { code: 0, signal: null });
    assert.match(running.stdout(), /#1 keeps running in the background; stop it with `projdex kill 1`\n$/);
    assert.ok(alive(Number(pid)), 'still running after the CLI ended');

    const listed = await runBin(t, ['ps', ...data]);
    assert.match(listed.stdout, new RegExp(`^ID +PROJECT +SCRIPT +STATUS +PID +STARTED +COMMAND\\n1 +#1 +dev +running, kept +${pid} `));
    const killed = await runBin(t, ['kill', '1', ...data]);
    assert.equal(killed.stdout, `#1 dev (pid ${pid}): stopped\n`);
    assert.equal(alive(Number(pid)), false, 'no process of the group is left');
  });
});
