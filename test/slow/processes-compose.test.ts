import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { call, makeTree, runBin, serve, spawnBin } from '../helpers/index.ts';
import { freePort, groupMembers, until } from '../helpers/processes.ts';

// Compose services as startable scripts (`compose:SERVICE`). A service runs in its image, so projdex starts
// `docker compose -f FILE up --timeout 3 SERVICE`. Docker is an external tool: where a real one is needed
// (the success path), the test writes its own `docker` executable that records its arguments and serves the
// port, and puts it on the server's PATH. The server reads PATH from its own environment, so these tests set it.

/** PATH for the server while the test runs (restored after it). */
function usePath(t: { after(fn: () => unknown): void }, path: string): void {
  const saved = process.env.PATH;
  process.env.PATH = path;
  t.after(() => { process.env.PATH = saved; });
}

/**
 * A stand-in `docker` (or `docker-compose`) in a folder of its own: it writes its arguments and working
 * directory to `argv.json`, serves `port` on 127.0.0.1 and says so, and ends on SIGTERM as compose does.
 * With `leaveProject` it serves from `/`, as Docker's proxy does.
 */
function fakeDocker(t: { after(fn: () => unknown): void }, name: string, port: number, { leaveProject = false } = {}): string {
  const dir = makeTree(t, {
    'fake.js': `const http = require('node:http');
require('node:fs').writeFileSync(${JSON.stringify('ARGV')}, JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd() }));
// Docker's own proxy holds a published port from outside the project's directory.
${leaveProject ? "process.chdir('/');" : ''}
const server = http.createServer((req, res) => res.end('ok'));
server.listen(${port}, '127.0.0.1', () => console.log('fake compose serving ${port}'));
process.on('SIGTERM', () => { console.log('Gracefully stopping...'); process.exit(0); });
`,
  });
  const file = join(dir, 'fake.js');
  writeFileSync(file, readFileSync(file, 'utf8').replace('"ARGV"', JSON.stringify(join(dir, 'argv.json'))));
  writeFileSync(join(dir, name), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(file)} "$@"\n`);
  chmodSync(join(dir, name), 0o755);
  return dir;
}

const composeYaml = (port: number): string => `services:
  web:
    image: projdex-test-never-pulled
    pull_policy: never
    ports:
      - "${port}:80"
  worker:
    image: projdex-test-never-pulled
    pull_policy: never
`;

suite('compose services as scripts', { skip: process.platform !== 'linux' && 'checks /proc' }, () => {
  test('compose:web runs `docker compose -f FILE up --timeout 3 web`, declares its published port, and stops as a group', async (t) => {
    const port = await freePort();
    const root = makeTree(t, {
      'app/compose.yaml': composeYaml(port), 'app/package.json': JSON.stringify({ scripts: { dev: 'node server.js' } }),
      'other/deploy/docker-compose.dev.yml': composeYaml(port),
    });
    const docker = fakeDocker(t, 'docker', port);
    usePath(t, `${docker}:${process.env.PATH}`);
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'app', path: join(root, 'app') });
    await call(`${url}/api/projects`, 'POST', { name: 'other', path: join(root, 'other') });
    await call(`${url}/api/projects/scan/all`, 'POST');

    const started = await call(`${url}/api/projects/1/processes`, 'POST', { script: 'compose:web' });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const proc = started.body;
    t.after(() => { try { process.kill(-proc.pid, 'SIGKILL'); } catch { /* gone */ } });
    assert.deepEqual([proc.script, proc.command, proc.status, proc.ports],
      ['compose:web', 'docker compose -f compose.yaml up --timeout 3 web', 'running', [port]]);

    const group = await until('the published port to be live', async () => {
      const groups = (await call(`${url}/api/ports?live=1`)).body as Array<{ port: number; live: { pid: number; project_id: number } | null }>;
      return groups.find((g) => g.port === port && g.live !== null);
    });
    assert.equal(group.live!.project_id, 1);
    const recorded = JSON.parse(readFileSync(join(docker, 'argv.json'), 'utf8'));
    assert.deepEqual(recorded, { argv: ['compose', '-f', 'compose.yaml', 'up', '--timeout', '3', 'web'], cwd: realpathSync(join(root, 'app')) });

    // The other project's service publishes the same host port (from a compose file the scan found): 409.
    const refused = await call(`${url}/api/projects/2/processes`, 'POST', { script: 'compose:web' });
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.match(refused.body.error, new RegExp(`^Port ${port} is already held by pid \\d+ .*project #1 app`));
    // Its worker publishes nothing: no port to check, so it starts (and is stopped at once).
    const worker = await call(`${url}/api/projects/2/processes`, 'POST', { script: 'compose:worker' });
    assert.equal(worker.status, 202, JSON.stringify(worker.body));
    assert.deepEqual([worker.body.command, worker.body.ports], ['docker compose -f deploy/docker-compose.dev.yml up --timeout 3 worker', []]);
    await call(`${url}/api/processes/${worker.body.id}`, 'DELETE');

    await until('the output', async () => ((await call(`${url}/api/processes/${proc.id}`)).body.output.includes(`fake compose serving ${port}`) || undefined));
    const stopped = await call(`${url}/api/processes/${proc.id}`, 'DELETE');
    assert.equal(stopped.body.status, 'stopped');
    assert.deepEqual(groupMembers(proc.pid), [], 'no process of the group is left');
    assert.match((await call(`${url}/api/processes/${proc.id}`)).body.output, /Gracefully stopping/);
  });

  test('docker-compose where only that is installed; a clear 422 with neither; a 404 names the scripts there are', async (t) => {
    const port = await freePort();
    const root = makeTree(t, { 'compose.yml': composeYaml(port), Makefile: 'build:\n\ttrue\n' });
    const legacy = fakeDocker(t, 'docker-compose', port);
    const empty = makeTree(t, {});
    usePath(t, legacy);
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'p', path: root });

    const started = await call(`${url}/api/projects/1/processes`, 'POST', { script: 'compose:web' });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    t.after(() => { try { process.kill(-started.body.pid, 'SIGKILL'); } catch { /* gone */ } });
    assert.equal(started.body.command, 'docker-compose -f compose.yml up --timeout 3 web');
    await until('the fake to record its arguments', () => {
      try { return JSON.parse(readFileSync(join(legacy, 'argv.json'), 'utf8')).argv; } catch { return undefined; }
    }).then((argv) => assert.deepEqual(argv, ['-f', 'compose.yml', 'up', '--timeout', '3', 'web']));
    assert.equal((await call(`${url}/api/processes/${started.body.id}`, 'DELETE')).body.status, 'stopped');

    process.env.PATH = empty;
    const missing = await call(`${url}/api/projects/1/processes`, 'POST', { script: 'compose:web' });
    assert.deepEqual([missing.status, missing.body.error], [422, 'Cannot start compose service "web": no docker or docker-compose '
      + 'executable is on the server\'s PATH (a compose service runs in its image, through Docker)']);
    assert.equal((await call(`${url}/api/processes`)).body.length, 1, 'nothing recorded for the refused start');

    const unknown = await call(`${url}/api/projects/1/processes`, 'POST', { script: 'compose:db' });
    assert.deepEqual([unknown.status, unknown.body.error], [404, 'No script "compose:db" in the project\'s package.json, Procfile, '
      + 'Makefile or compose files: it has compose:web, compose:worker, build']);
    // A service is never the usual script: with no dev, start or Procfile web, a name is needed.
    assert.equal((await call(`${url}/api/projects/1/processes`, 'POST', {})).status, 404);

    // A compose file past 128 KiB is not parsed on the HTTP thread, and the answer says so.
    const big = makeTree(t, { 'compose.yaml': composeYaml(port) + `# ${'x'.repeat(140 * 1024)}\n` });
    await call(`${url}/api/projects`, 'POST', { name: 'big', path: big });
    const unread = await call(`${url}/api/projects/2/processes`, 'POST', { script: 'compose:web' });
    assert.deepEqual([unread.status, unread.body.error], [404, 'No script "compose:web" in the project\'s package.json, '
      + 'Procfile, Makefile or compose files: it has none; not read, over 128 KiB: compose.yaml']);
  });

  test('projdex run ID compose:web prints the URL of its published port, held from outside the project', async (t) => {
    const port = await freePort();
    const root = makeTree(t, { 'app/compose.yaml': composeYaml(port) });
    const docker = fakeDocker(t, 'docker', port, { leaveProject: true });
    const data = ['--data-dir', join(root, 'data')];
    const env = { PATH: `${docker}:${process.env.PATH}` };
    assert.equal((await runBin(t, ['add', join(root, 'app'), ...data], env)).code, 0);
    assert.equal((await runBin(t, ['scan', '1', ...data], env)).code, 0);
    const running = spawnBin(t, ['run', '1', 'compose:web', ...data], env);
    const [, pid] = await running.waitFor(/^started #1 compose:web of #1 app \(pid (\d+)\): docker compose -f compose\.yaml up --timeout 3 web\n/);
    t.after(() => { try { process.kill(-Number(pid), 'SIGKILL'); } catch { /* gone */ } });
    await running.waitFor(new RegExp(`${port}: http://127\\.0\\.0\\.1:${port}/\\n`));
    running.child.kill('SIGINT');
    assert.deepEqual(await running.exit(), { code: 0, signal: null });
    assert.equal((await runBin(t, ['kill', '1', ...data], env)).stdout, `#1 compose:web (pid ${pid}): stopped\n`);
    assert.deepEqual(groupMembers(Number(pid)), []);
  });

  test('a real docker client with no engine: the process is `failed` with docker\'s own message', async (t) => {
    let docker = '';
    try {
      docker = execFileSync('sh', ['-c', 'command -v docker'], { encoding: 'utf8' }).trim();
    } catch { /* none */ }
    if (!docker) return t.skip('no docker executable on this machine');
    try {
      execFileSync(docker, ['info'], { stdio: 'ignore', timeout: 20_000 });
      return t.skip('a Docker engine answers here: this test never starts real containers');
    } catch { /* no engine: what this test is for */ }
    const root = makeTree(t, { 'compose.yaml': composeYaml(await freePort()) });
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'p', path: root });
    const started = await call(`${url}/api/projects/1/processes`, 'POST', { script: 'compose:web' });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const ended = await until('docker to give up', async () => {
      const body = (await call(`${url}/api/processes/${started.body.id}`)).body;
      return body.status === 'running' ? undefined : body;
    }, 60_000);
    t.diagnostic(`docker said: ${ended.output.trim().split('\n')[0]}`);
    assert.equal(ended.status, 'failed');
    assert.notEqual(ended.exit_code, 0);
    assert.match(ended.output, /docker|daemon|compose/i);
  });
});
