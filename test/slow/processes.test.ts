import assert from 'node:assert/strict';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { startServer } from '../../src/server/server.ts';
import { call, makeTree, memoryLogger, serve } from '../helpers/index.ts';
import type { ProjdexEvent } from '../../src/core/events.ts';
import { freePort, groupMembers, until } from '../helpers/processes.ts';

// Background processes with real children: a dev script that is a small node:http server on a port from an
// env var, which itself starts a child (so stopping has a group to stop). Linux: /proc is read to check.

const SERVER_JS = `const http = require('node:http');
const { spawn } = require('node:child_process');
// A grandchild in the same process group: stopping must end it too.
spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
const server = http.createServer((req, res) => res.end('ok'));
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening on ' + process.env.PORT));
`;

function fixture(t: { after(fn: () => unknown): void }, port: number, otherPort = port): string {
  return makeTree(t, {
    'web/package.json': JSON.stringify({ scripts: { dev: `PORT=${port} node server.js` } }), 'web/server.js': SERVER_JS,
    'other/package.json': JSON.stringify({ scripts: { dev: `PORT=${otherPort} node server.js` } }), 'other/server.js': SERVER_JS,
  });
}

/** Kills what a failed test left running (a kept process outlives its server by design). */
function reap(t: { after(fn: () => unknown): void }, pid: number): void {
  t.after(() => { try { process.kill(-pid, 'SIGKILL'); } catch { /* already gone */ } });
}

suite('background processes', { skip: process.platform !== 'linux' && 'checks /proc' }, () => {
  test('start, live port owned by the project, 409 for the same port elsewhere, output, stop leaves no process', async (t) => {
    const port = await freePort();
    const root = fixture(t, port);
    const running = await serve(t);
    const { url } = running;
    const seen: ProjdexEvent[] = [];
    t.after(running.events.subscribe((e) => { if (e.type.startsWith('process.')) seen.push(e); }));
    await call(`${url}/api/projects`, 'POST', { name: 'web', path: join(root, 'web') });
    await call(`${url}/api/projects`, 'POST', { name: 'other', path: join(root, 'other') });
    await call(`${url}/api/projects/scan/all`, 'POST');

    const started = await call(`${url}/api/projects/1/processes`, 'POST', {});
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const proc = started.body;
    reap(t, proc.pid);
    assert.deepEqual([proc.project_id, proc.script, proc.command, proc.status, proc.exit_code, proc.ports],
      [1, 'dev', `PORT=${port} node server.js`, 'running', null, [port]]);
    assert.equal(typeof proc.pid, 'number');

    const group = await until('the port to be live', async () => {
      const groups = (await call(`${url}/api/ports?live=1`)).body as Array<{ port: number; live: { pid: number; project_id: number } | null }>;
      return groups.find((g) => g.port === port && g.live !== null);
    });
    assert.equal(group.live!.project_id, 1);

    const refused = await call(`${url}/api/projects/2/processes`, 'POST', { script: 'dev' });
    assert.equal(refused.status, 409);
    assert.match(refused.body.error, new RegExp(`^Port ${port} is already held by pid \\d+ \\(.*\\), a process of project #1 web: stop it first, or start with "force": true$`));
    assert.equal(refused.body.holder.project_id, 1);

    const detail = await until('its output', async () => {
      const body = (await call(`${url}/api/processes/${proc.id}`)).body;
      return body.output.includes(`listening on ${port}`) ? body : undefined;
    });
    assert.equal(detail.status, 'running');
    assert.equal((await call(`${url}/api/processes`)).body.length, 1);
    assert.ok(groupMembers(proc.pid).length >= 3, 'sh, the server and its child share the group');

    const stopped = await call(`${url}/api/processes/${proc.id}`, 'DELETE');
    assert.equal(stopped.status, 200);
    assert.equal(stopped.body.status, 'stopped');
    assert.deepEqual(groupMembers(proc.pid), [], 'no process of the group is left');
    await until('process.exited', () => seen.some((e) => e.type === 'process.exited'));
    assert.deepEqual(seen.map((e) => e.type).filter((type, i, all) => all.indexOf(type) === i), ['process.started', 'process.output', 'process.exited']);

    // Free again: the other project may start; `force` is not needed.
    const second = await call(`${url}/api/projects/2/processes`, 'POST', {});
    assert.equal(second.status, 202);
    await call(`${url}/api/processes/${second.body.id}`, 'DELETE');
  });

  test('a script that fails and bad requests', async (t) => {
    const root = makeTree(t, { 'package.json': JSON.stringify({ scripts: { broken: 'exit 3' } }) });
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'p', path: root });
    const started = await call(`${url}/api/projects/1/processes`, 'POST', { script: 'broken' });
    assert.equal(started.status, 202);
    const ended = await until('the exit', async () => {
      const body = (await call(`${url}/api/processes/${started.body.id}`)).body;
      return body.status === 'running' ? undefined : body;
    });
    assert.deepEqual([ended.status, ended.exit_code], ['failed', 3]);
    assert.deepEqual((await call(`${url}/api/projects/1/processes`, 'POST', {})).body,
      { error: 'The project has no dev or start script and no Procfile web process: name a script' });
    assert.equal((await call(`${url}/api/projects/1/processes`, 'POST', { script: 'nope' })).status, 404);
    assert.equal((await call(`${url}/api/projects/1/processes`, 'POST', { keep: 'yes' })).body.error, 'keep must be a boolean');
    assert.equal((await call(`${url}/api/projects/9/processes`, 'POST', {})).status, 404);
    assert.equal((await call(`${url}/api/processes/abc`)).body.error, 'Invalid process ID');
    assert.equal((await call(`${url}/api/processes/99`, 'DELETE')).status, 404);
  });

  test('processes stop with the server; a kept one is found again after a restart, and can be stopped', async (t) => {
    const port = await freePort();
    const root = fixture(t, port, await freePort());
    const dataDir = join(root, 'data');
    const options = { port: 0, dataDir, logger: memoryLogger() };
    const first = await startServer(options);
    t.after(() => first.close());
    await call(`${first.url}/api/projects`, 'POST', { name: 'web', path: join(root, 'web') });
    await call(`${first.url}/api/projects`, 'POST', { name: 'other', path: join(root, 'other') });
    const kept = (await call(`${first.url}/api/projects/1/processes`, 'POST', { keep: true })).body;
    const plain = (await call(`${first.url}/api/projects/2/processes`, 'POST', { script: 'dev' })).body;
    reap(t, kept.pid);
    reap(t, plain.pid);
    await until('the kept server to listen', async () => (await call(`${first.url}/api/processes/${kept.id}`)).body.output.includes('listening'));
    await first.close();
    assert.deepEqual(groupMembers(plain.pid), [], 'a process without keep stops with the server');
    assert.ok(groupMembers(kept.pid).length > 0, 'the kept one still runs');

    const second = await startServer(options);
    t.after(() => second.close());
    const found = (await call(`${second.url}/api/processes/${kept.id}`)).body;
    assert.deepEqual([found.status, found.pid, found.keep], ['running', kept.pid, true]);
    assert.match(found.output, new RegExp(`listening on ${port}`));
    assert.equal((await call(`${second.url}/api/processes/${plain.id}`)).body.status, 'stopped');
    const stopped = (await call(`${second.url}/api/processes/${kept.id}`, 'DELETE')).body;
    assert.equal(stopped.status, 'stopped');
    assert.deepEqual(groupMembers(kept.pid), []);
  });

  test('a kept process that ended while no server ran is marked gone', async (t) => {
    const root = makeTree(t, { 'package.json': JSON.stringify({ scripts: { dev: 'sleep 30' } }) });
    const options = { port: 0, dataDir: join(root, 'data'), logger: memoryLogger() };
    const first = await startServer(options);
    t.after(() => first.close());
    await call(`${first.url}/api/projects`, 'POST', { name: 'p', path: root });
    const kept = (await call(`${first.url}/api/projects/1/processes`, 'POST', { keep: true })).body;
    reap(t, kept.pid);
    await first.close();
    process.kill(-kept.pid, 'SIGKILL');
    await until('the group to end', () => groupMembers(kept.pid).length === 0 || undefined);
    const second = await startServer(options);
    t.after(() => second.close());
    const found = (await call(`${second.url}/api/processes/${kept.id}`)).body;
    assert.deepEqual([found.status, found.exit_code], ['exited', null]);
    assert.match(found.note, /ended while no projdex server was watching it/);
  });
});
