import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { hexAddress, parseProcNet } from '../../src/core/live/proc-net.ts';
import { parseLsofFields, splitName } from '../../src/core/live/lsof.ts';
import { defaultSource, projectOf, readLivePorts } from '../../src/core/live/live-ports.ts';
import { withLive } from '../../src/server/api/live-ports.ts';
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

  test('Windows: no source, so every live field is null with a note saying why', async () => {
    assert.deepEqual([defaultSource('linux'), defaultSource('darwin'), defaultSource('freebsd'), defaultSource('win32')],
      ['proc', 'lsof', 'lsof', 'none']);
    const reading = await readLivePorts([{ id: 1, path: '/code/web' }], { platform: 'win32' });
    assert.deepEqual([reading.available, reading.sockets], [false, []]);
    assert.match(reading.notes[0]!, /^live ports are not read on win32: projdex reads \/proc on Linux and runs lsof on macOS/);
    const claim = { port: 3000, conflict: false, projects: [{ project_id: 1, name: 'web', scripts: ['dev'], sources: ['package.json'] }] };
    assert.deepEqual(withLive([claim], reading), [{ ...claim, live: null, live_note: reading.notes[0] }]);
  });

  test('the proc source where procfs is missing: not available, with a note (never an empty "nothing listens")', async (t) => {
    const empty = makeTree(t, {});
    const reading = await readLivePorts([], { source: 'proc', proc: empty });
    assert.deepEqual([reading.available, reading.sockets], [false, []]);
    assert.equal(reading.notes[0], `live ports could not be read: ${empty}/net/tcp cannot be read`);
  });

  // macOS's path, run here with the real lsof on a real socket (Linux has lsof too; the source is chosen).
  const lsof = (() => {
    try { return execFileSync('sh', ['-c', 'command -v lsof'], { encoding: 'utf8' }).trim(); } catch { return ''; }
  })();
  test('the lsof source on a real listening socket: holder, command name, working directory, project', async (t) => {
    if (!lsof) {
      console.log('# skipped: lsof is not installed here, so the lsof source cannot be run (install the lsof package)');
      return t.skip('lsof is not installed');
    }
    const root = realpathSync(makeTree(t, { 'web/package.json': '{}' }));
    const { pid, port } = await listener(t, join(root, 'web'));
    const projects = [{ id: 1, path: root }, { id: 2, path: join(root, 'web') }];
    const reading = await readLivePorts(projects, { source: 'lsof' });
    assert.equal(reading.available, true, reading.notes.join('; '));
    // What lsof leaves out is said.
    assert.deepEqual(reading.notes, ['lsof lists only the processes it may inspect: a port held by another user\'s '
      + 'process, or one outside this process namespace, is not listed']);
    const socket = reading.sockets.find((s) => s.port === port);
    assert.ok(socket, `port ${port} in lsof's listing: ${JSON.stringify(reading.sockets)}`);
    // lsof names a process by its command name (what /proc/PID/comm holds on Linux), not its whole command line.
    const name = process.platform === 'linux' ? readFileSync(`/proc/${pid}/comm`, 'utf8').trim() : socket.command;
    assert.deepEqual(socket, { port, address: '127.0.0.1', pid, command: name, cwd: join(root, 'web'), project_id: 2 });
    assert.ok(name, 'a command name');
    if (process.platform === 'linux') {
      // Both sources agree on who holds it and where it runs.
      const viaProc = (await readLivePorts(projects, { source: 'proc' })).sockets.find((s) => s.port === port);
      assert.deepEqual([viaProc?.pid, viaProc?.cwd, viaProc?.project_id], [pid, join(root, 'web'), 2]);
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
