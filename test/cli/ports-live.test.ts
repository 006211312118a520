import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { makeTree } from '../helpers/index.ts';
import { run } from '../helpers/cli.ts';

suite('projdex ports --live', () => {
  test('marks the port a process of the project listens on now', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
    const root = makeTree(t);
    const web = join(root, 'web');
    const child = spawn(process.execPath, ['-e', "const s = require('node:http').createServer(); s.listen(0, '127.0.0.1', () => console.log(s.address().port));"], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    t.after(() => child.kill('SIGKILL'));
    const port = await new Promise<number>((resolve) => child.stdout!.setEncoding('utf8').once('data', (line: string) => resolve(Number(line.trim()))));
    // The listener runs in `root`, which holds the project `web`: not inside it, so it is "other".
    const data = ['--data-dir', join(root, 'data')];
    mkdirSync(web);
    writeFileSync(join(web, '.env'), `PORT=${port}\n`);
    assert.equal((await run(['add', web, ...data])).code, 0);
    assert.equal((await run(['scan', web, ...data])).code, 0);
    const listed = await run(['ports', '--live', ...data]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^PORT +PROJECT +SCRIPT +LIVE +SOURCE\\n${port} +#1 web +- +pid ${child.pid} other +\\.env\\n$`));
  });
});
