import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { call, makeTree, PORT_RANGE, PORT_RANGE_ENV, runBin, spawnBin } from '../helpers/index.ts';

// Hermetic: every child gets PROJDEX_PORT_RANGE, a block of ports of this run below the ephemeral range,
// instead of the shared default 38124..38133; every child and every wait on it has a deadline.

const VERSION = (JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
const RANGE = { PROJDEX_PORT_RANGE: PORT_RANGE_ENV };
const LISTENING = /^projdex listening on (http:\/\/\S+)\n/;

/** Holds `port` on 127.0.0.1 for the rest of the test; a port already taken fails the test (it would make it meaningless). */
async function occupy(t: { after(fn: () => unknown): void }, port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new Error(`cannot occupy port ${port} for the test: ${error.message}`)));
    server.listen(port, '127.0.0.1', () => resolve());
  });
  t.after(() => new Promise<void>((done) => server.close(() => done())));
  return server;
}

suite('projdex CLI', () => {
  test('--help prints the sections and exits 0', async (t) => {
    const { code, stdout } = await runBin(t, ['--help']);
    assert.equal(code, 0);
    for (const section of ['Description', 'Usage', 'Options', 'Environment', 'Examples', '--port', '--data-dir', 'PROJDEX_PORT_RANGE']) {
      assert.match(stdout, new RegExp(section));
    }
  });

  test('--version prints the package version', async (t) => {
    assert.deepEqual(await runBin(t, ['--version']), { code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  test('usage errors exit 2 with ERROR and a pointer to --help', async (t) => {
    const cases: Array<[string[], Record<string, string>]> = [
      [['--bogus'], {}], [['--port', 'abc'], {}], [['--port', '70000'], {}], [['stray'], {}],
      ...['abc', '5', '20010-20000', '0-10', '65000-65536', '1000-2000', '1-2-3', '-5'].map((range): [string[], Record<string, string>] => [['--port', '0'], { PROJDEX_PORT_RANGE: range }]),
    ];
    for (const [args, env] of cases) {
      const { code, stderr, stdout } = await runBin(t, args, env);
      const label = `${args.join(' ')} ${JSON.stringify(env)}`;
      assert.equal(code, 2, label);
      assert.match(stderr, /^ERROR: .+\nRun `projdex --help` for more info\.\n$/, label);
      assert.equal(stdout, '', label);
    }
  });

  test('starts, prints the URL first, writes server.json, and SIGTERM exits 0 and removes it', async (t) => {
    const dataDir = join(makeTree(t), 'data');
    const running = spawnBin(t, ['--port', '0', '--data-dir', dataDir], RANGE);
    const [, url] = await running.waitFor(LISTENING);
    assert.match(url!, /^http:\/\/127\.0\.0\.1:\d+$/);
    const info = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8'));
    assert.equal(info.url, url);
    assert.equal(info.pid, running.child.pid);
    assert.equal((await call(`${url}/health`)).body.status, 'ok');
    assert.equal((await call(`${url}/api/settings/k`, 'PUT', { value: 'v' })).status, 200);
    running.child.kill('SIGTERM');
    assert.deepEqual(await running.exit(), { code: 0, signal: null });
    assert.equal(existsSync(join(dataDir, 'server.json')), false);
    assert.equal(existsSync(join(dataDir, 'projdex.db')), true);
  });

  test('SIGINT also closes cleanly', async (t) => {
    const running = spawnBin(t, ['--port', '0', '--data-dir', join(makeTree(t), 'data')], RANGE);
    await running.waitFor(LISTENING);
    running.child.kill('SIGINT');
    assert.deepEqual(await running.exit(), { code: 0, signal: null });
  });

  test('PROJDEX_HOME picks the data dir when --data-dir is absent', async (t) => {
    const home = join(makeTree(t), 'home');
    const running = spawnBin(t, ['--port', '0'], { ...RANGE, PROJDEX_HOME: home });
    await running.waitFor(/^data: .+\n/m);
    assert.match(running.stdout(), new RegExp(`\\ndata: ${home.replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`));
    assert.ok(existsSync(join(home, 'server.json')));
    running.child.kill('SIGTERM');
    assert.equal((await running.exit()).code, 0);
  });

  test('without --port, takes the first free port of PROJDEX_PORT_RANGE', async (t) => {
    const running = spawnBin(t, ['--data-dir', join(makeTree(t), 'data')], RANGE);
    const [, url] = await running.waitFor(LISTENING);
    assert.equal(Number(new URL(url!).port), PORT_RANGE[0]);
    running.child.kill('SIGTERM');
    assert.equal((await running.exit()).code, 0);
  });

  test('takes the next port of the range when the first is taken', async (t) => {
    await occupy(t, PORT_RANGE[0]!);
    const running = spawnBin(t, ['--data-dir', join(makeTree(t), 'data')], RANGE);
    const [, url] = await running.waitFor(LISTENING);
    assert.equal(Number(new URL(url!).port), PORT_RANGE[1]);
    running.child.kill('SIGTERM');
    assert.equal((await running.exit()).code, 0);
  });

  test('--port wins over PROJDEX_PORT_RANGE', async (t) => {
    const running = spawnBin(t, ['--port', '0', '--data-dir', join(makeTree(t), 'data')], RANGE);
    const [, url] = await running.waitFor(LISTENING);
    assert.ok(!PORT_RANGE.includes(Number(new URL(url!).port)), url);
    running.child.kill('SIGTERM');
    assert.equal((await running.exit()).code, 0);
  });

  test('exits 1 with one clear sentence when the whole range is taken', async (t) => {
    for (const port of PORT_RANGE) await occupy(t, port);
    const { code, stderr, stdout } = await runBin(t, ['--data-dir', join(makeTree(t), 'data')], RANGE);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.equal(stderr, `ERROR: Every port of ${PORT_RANGE[0]}..${PORT_RANGE.at(-1)} on 127.0.0.1 is in use; choose another with --port N (0 picks any free port).\n`);
  });
});
