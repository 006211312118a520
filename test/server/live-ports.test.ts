import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { hexAddress, parseProcNet } from '../../src/core/live/proc-net.ts';
import { parseLsofFields, splitName } from '../../src/core/live/lsof.ts';
import { projectOf, readLivePorts } from '../../src/core/live/live-ports.ts';
import { call, makeTree, serve } from '../helpers/index.ts';

// Ports really held: parsers on the shapes Linux and lsof print, then a real node:http server on port 0.

/** Starts `node -e` listening on port 0 in `cwd`; resolves with its pid and port once it listens. */
async function listener(t: { after(fn: () => unknown): void }, cwd: string): Promise<{ pid: number; port: number }> {
  const child = spawn(process.execPath, ['-e', "const s = require('node:http').createServer(); s.listen(0, '127.0.0.1', () => console.log(s.address().port));"], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').once('data', (line: string) => resolve(Number(line.trim())));
    child.once('exit', (code) => reject(new Error(`listener exited ${code}`)));
  });
  return { pid: child.pid!, port };
}

suite('live ports', () => {
  test('parses /proc/net/tcp and tcp6: LISTEN rows only, addresses in their usual form', () => {
    const tcp = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0',
      '   1: 0100007F:1F91 0100007F:A000 01 00000000:00000000 00:00000000 00000000  1000        0 4243 1 0000000000000000 20 4 30 10 -1',
    ].join('\n');
    assert.deepEqual(parseProcNet(tcp), [{ inode: '4242', address: '127.0.0.1', port: 8080 }]);
    assert.equal(hexAddress('00000000000000000000000001000000'), '::1');
    assert.equal(hexAddress('00000000000000000000000000000000'), '::');
    assert.equal(hexAddress('0000000000000000FFFF00000100007F'), '::ffff:7f00:1');
  });

  test('parses lsof -F output and its names', () => {
    const out = 'p501\ncnode\nf23\nn*:3000\nf24\nn[::1]:5173\np77\ncpostgres\nf5\nn127.0.0.1:5432\n';
    assert.deepEqual(parseLsofFields(out), [
      { pid: 501, command: 'node', name: '*:3000' }, { pid: 501, command: 'node', name: '[::1]:5173' },
      { pid: 77, command: 'postgres', name: '127.0.0.1:5432' },
    ]);
    assert.deepEqual(splitName('[::1]:5173'), { address: '::1', port: 5173 });
    assert.equal(splitName('garbage'), undefined);
  });

  test('a process belongs to the deepest registered project holding its working directory', () => {
    const projects = [{ id: 1, path: '/code/mono' }, { id: 2, path: '/code/mono/apps/web' }, { id: 3, path: '/code/mon' }];
    assert.equal(projectOf('/code/mono/apps/web/src', projects), 2);
    assert.equal(projectOf('/code/mono', projects), 1);
    assert.equal(projectOf('/code/monolith', projects), null);
    assert.equal(projectOf(null, projects), null);
  });

  test('elsewhere without lsof: not available, with a note', async () => {
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const reading = await readLivePorts([], { platform: 'freebsd' });
      assert.equal(reading.available, false);
      assert.match(reading.notes[0]!, /not available on freebsd.*lsof is not installed/);
    } finally {
      process.env.PATH = saved;
    }
  });

  test('a node:http server started in a registered project: its port is live and owned by that project', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
    const root = makeTree(t, { 'web/package.json': '{}', 'other/package.json': '{}' });
    const { pid, port } = await listener(t, join(root, 'web'));
    // Both projects declare the port; only one of them runs the process that holds it.
    writeFileSync(join(root, 'web', '.env'), `PORT=${port}\n`);
    writeFileSync(join(root, 'other', '.env'), `PORT=${port}\n`);
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'web', path: join(root, 'web') });
    await call(`${url}/api/projects`, 'POST', { name: 'other', path: join(root, 'other') });
    await call(`${url}/api/projects/scan/all`, 'POST');

    const groups = (await call(`${url}/api/ports?live=1`)).body as Array<{ port: number; conflict: boolean; live: unknown; live_note: unknown }>;
    const group = groups.find((g) => g.port === port);
    assert.ok(group, `port ${port} claimed: ${JSON.stringify(groups)}`);
    assert.equal(group.conflict, true);
    assert.deepEqual(group.live, { pid, command: `${process.execPath} -e ${"const s = require('node:http').createServer(); s.listen(0, '127.0.0.1', () => console.log(s.address().port));"}`, project_id: 1 });
    assert.equal(group.live_note, null);
    // Without live=1 the answer is as before: no live fields.
    assert.equal('live' in (await call(`${url}/api/ports`)).body[0], false);

    const all = (await call(`${url}/api/ports/live`)).body;
    assert.equal(all.available, true);
    const socket = all.sockets.find((s: { port: number }) => s.port === port);
    assert.deepEqual({ ...socket, command: undefined }, { port, address: '127.0.0.1', pid, command: undefined, cwd: join(root, 'web'), project_id: 1 });
    // The server's own socket is there too: it is held by this very process, outside every project.
    assert.equal(all.sockets.find((s: { port: number }) => s.port === Number(new URL(url).port)).pid, process.pid);
  });

  test('bad live values are 400', async (t) => {
    const { url } = await serve(t);
    const answer = await call(`${url}/api/ports?live=yes`);
    assert.deepEqual([answer.status, answer.body.error], [400, 'Invalid live: use 1 or 0']);
  });
});
