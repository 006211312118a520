import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';
import { after, before, suite, test } from 'node:test';
import { call, makeTree } from './helpers.ts';

// The packed package, as a user gets it. Node 24 first on PATH, as `npm test` arranges, so `#!/usr/bin/env node` finds it.
const ROOT = join(import.meta.dirname, '..');
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, npm_config_update_notifier: 'false' };

suite('the published package', { timeout: 120_000 }, () => {
  let workDir = '';
  let tarball = '';
  // Temp dirs made outside a test are removed when the suite ends.
  const cleanups: Array<() => unknown> = [];
  const suiteScope = { after: (fn: () => unknown) => { cleanups.push(fn); } };
  after(() => { for (const fn of cleanups) fn(); });
  before(() => {
    workDir = makeTree(suiteScope, {}, 'projdex-pack-');
    const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', workDir], { cwd: ROOT, env, encoding: 'utf8' }).trim().split('\n').at(-1)!;
    tarball = join(workDir, name);
  });

  test('ships compiled JS with types and a bin, and no sources or tests', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
    for (const file of ['package/dist/bin.js', 'package/dist/cli.js', 'package/dist/index.js', 'package/dist/index.d.ts', 'package/package.json', 'package/README.md',
      'package/dist/web/index.html', 'package/dist/web/app.js', 'package/dist/web/app.css']) {
      assert.ok(files.includes(file), `${file} missing`);
    }
    assert.deepEqual(files.filter((f) => /^package\/(src|test|bench)\//.test(f) || f.endsWith('.ts') && !f.endsWith('.d.ts')), []);
  });

  test('`npx ./projdex-<version>.tgz --port 0` starts the server', async (t) => {
    const dataDir = join(workDir, 'npx-data');
    const child = spawn('npx', ['--yes', `./${basename(tarball)}`, '--port', '0', '--data-dir', dataDir], { cwd: workDir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    t.after(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ } });
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (d) => {
        stdout += d;
        const m = /projdex listening on (\S+)\n/.exec(stdout);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`npx exited ${code}`)));
    });
    assert.equal((await call(`${url}/health`)).body.status, 'ok');
    const page = await fetch(`${url}/`);
    assert.equal(page.status, 200, 'the dashboard is served from the package');
    assert.match(await page.text(), /<script type="module" src="\/ui\/app\.js">/);
    // Signal the server itself (npx is only its parent), then wait for npx to pass its exit on.
    const { pid } = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8')) as { pid: number };
    const exited = once(child, 'exit');
    process.kill(pid, 'SIGTERM');
    assert.deepEqual(await exited, [0, null]);
    assert.equal(existsSync(join(dataDir, 'server.json')), false);
  });

  test('imports as a library with types, and starts and closes a server', async (t) => {
    const consumer = makeTree(t, {
      'package.json': '{"name":"consumer","type":"module","private":true,"scripts":{"test":"node --test"}}',
      'test/a.test.mjs': "import { test } from 'node:test'; test('a', () => {});",
      'use.mjs': [
        "import { startServer, scan, openStore } from 'projdex';",
        "const { url, close } = await startServer({ port: 0 });",
        "const health = await (await fetch(url + '/health')).json();",
        "const post = (path, body) => fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });",
        "await post('/api/projects', { name: 'me', path: process.cwd() });",
        "const scanned = await (await fetch(url + '/api/projects/1/scan', { method: 'POST' })).json();",
        "await close();",
        "console.log(JSON.stringify({ health: health.status, tests: scanned.tests.map((t) => t.file_path), scan: typeof scan, openStore: typeof openStore }));",
      ].join('\n'),
    });
    execFileSync('npm', ['install', '--silent', '--no-audit', '--no-fund', tarball], { cwd: consumer, env });
    assert.ok(existsSync(join(consumer, 'node_modules', 'projdex', 'dist', 'index.d.ts')));
    const out = execFileSync(process.execPath, ['use.mjs'], { cwd: consumer, encoding: 'utf8' });
    // The scan ran on the compiled worker thread (dist/scan/worker.js) and found the consumer's own test.
    assert.deepEqual(JSON.parse(out), { health: 'ok', tests: ['test/a.test.mjs'], scan: 'function', openStore: 'function' });
  });

  const oldNode = ['/usr/bin/node', '/usr/local/bin/node', '/bin/node'].find((bin) => {
    if (!existsSync(bin)) return false;
    const [major = 0, minor = 0] = execFileSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim().split('.').map(Number);
    return major < 22 || (major === 22 && minor < 13);
  });

  test('on a Node without node:sqlite, the bin says so in one sentence and exits 1', { skip: oldNode ? false : 'no Node older than 22.13 on this machine' }, () => {
    const dir = makeTree(suiteScope);
    execFileSync('tar', ['-xzf', tarball, '-C', dir]);
    let result: { status: number | null; stderr: string; stdout: string } = { status: 0, stderr: '', stdout: '' };
    try {
      execFileSync(oldNode!, [join(dir, 'package', 'dist', 'bin.js'), '--port', '0'], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      result = error as typeof result;
    }
    assert.equal(result.status, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^projdex needs Node\.js 22\.13 or newer \(for node:sqlite\); this is Node\.js \d+\.\d+\.\d+\.\n$/);
  });
});
