import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { once } from 'node:events';
import { suite, test } from 'node:test';
import { call, makeTree } from './helpers.ts';

const BIN = join(import.meta.dirname, '..', 'src', 'bin.ts');
const VERSION = (JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;

interface Run { code: number | null; stdout: string; stderr: string }

/** Runs the CLI to completion (for flags that exit at once). */
async function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = await once(child, 'exit');
  return { code, stdout, stderr };
}

/** Starts the CLI as a server and resolves once it printed its URL line. */
async function start(t: { after(fn: () => unknown): void }, args: string[]): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      stdout += d;
      const line = /^projdex listening on (http:\/\/\S+)\n/.exec(stdout);
      if (line) resolve(line[1]!);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} before listening: ${stderr}`)));
  });
  return { child, url, output: () => stdout };
}

/** Occupies a port on 127.0.0.1; resolves null when something else already holds it. */
async function occupy(t: { after(fn: () => unknown): void }, port: number): Promise<Server | null> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      t.after(() => new Promise<void>((done) => server.close(() => done())));
      resolve(server);
    });
  });
}

suite('projdex CLI', () => {
  test('--help prints the sections and exits 0', async () => {
    const { code, stdout } = await run(['--help']);
    assert.equal(code, 0);
    for (const section of ['Description', 'Usage', 'Options', 'Examples', '--port', '--data-dir']) assert.match(stdout, new RegExp(section));
  });

  test('--version prints the package version', async () => {
    assert.deepEqual(await run(['--version']), { code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  test('usage errors exit 2 with ERROR and a pointer to --help', async () => {
    for (const args of [['--bogus'], ['--port', 'abc'], ['--port', '70000'], ['stray']]) {
      const { code, stderr, stdout } = await run(args);
      assert.equal(code, 2, args.join(' '));
      assert.match(stderr, /^ERROR: .+\nRun `projdex --help` for more info\.\n$/);
      assert.equal(stdout, '');
    }
  });

  test('starts, prints the URL first, writes server.json, and SIGTERM exits 0 and removes it', async (t) => {
    const dataDir = join(makeTree(t), 'data');
    const { child, url } = await start(t, ['--port', '0', '--data-dir', dataDir]);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const info = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8'));
    assert.equal(info.url, url);
    assert.equal(info.pid, child.pid);
    assert.equal((await call(`${url}/health`)).body.status, 'ok');
    await call(`${url}/api/settings/k`, 'PUT', { value: 'v' });
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    assert.equal(existsSync(join(dataDir, 'server.json')), false);
    assert.equal(existsSync(join(dataDir, 'projdex.db')), true);
  });

  test('SIGINT also closes cleanly', async (t) => {
    const dataDir = join(makeTree(t), 'data');
    const { child } = await start(t, ['--port', '0', '--data-dir', dataDir]);
    child.kill('SIGINT');
    assert.deepEqual(await once(child, 'exit'), [0, null]);
  });

  test('PROJDEX_HOME picks the data dir when --data-dir is absent', async (t) => {
    const home = join(makeTree(t), 'home');
    const child = spawn(process.execPath, [BIN, '--port', '0'], { env: { ...process.env, PROJDEX_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    t.after(() => child.kill('SIGKILL'));
    const [chunk] = await once(child.stdout, 'data');
    assert.match(String(chunk), /^projdex listening on /);
    assert.ok(existsSync(join(home, 'server.json')));
    child.kill('SIGTERM');
    await once(child, 'exit');
  });

  test('takes the next port of 38124..38133 when 38124 is taken', async (t) => {
    await occupy(t, 38124);
    const dataDir = join(makeTree(t), 'data');
    const { child, url } = await start(t, ['--data-dir', dataDir]);
    const port = Number(new URL(url).port);
    assert.ok(port > 38124 && port <= 38133, url);
    child.kill('SIGTERM');
    await once(child, 'exit');
  });

  test('exits 1 with one clear sentence when the whole range is taken', async (t) => {
    for (let port = 38124; port <= 38133; port++) await occupy(t, port);
    const { code, stderr, stdout } = await run(['--data-dir', join(makeTree(t), 'data')]);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, /^ERROR: Every port of 38124\.\.38133 on 127\.0\.0\.1 is in use; choose another with --port N \(0 picks any free port\)\.\n/);
  });
});
