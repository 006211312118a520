import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';
import { after, before, suite, test } from 'node:test';
import { call, makeTree } from '../helpers/index.ts';

// The packed package, as a user gets it. Node 24 first on PATH, as `npm test` arranges, so `#!/usr/bin/env node` finds it.
const ROOT = join(import.meta.dirname, '..', '..');
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
    const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', workDir], { cwd: ROOT, env, encoding: 'utf8', timeout: 180_000, killSignal: 'SIGKILL' }).trim().split('\n').at(-1)!;
    tarball = join(workDir, name);
  });

  test('ships compiled JS with types and a bin, and no sources or tests', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8', timeout: 30_000 }).split('\n').filter(Boolean);
    for (const file of ['package/dist/bin.js', 'package/dist/cli.js', 'package/dist/index.js', 'package/dist/index.d.ts', 'package/package.json', 'package/README.md',
      'package/dist/server/web/index.html', 'package/dist/server/web/app.js', 'package/dist/server/web/app.css']) {
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
      // A deadline: npx that never prints the URL fails the test (the after hook kills its group).
      setTimeout(() => reject(new Error(`npx printed no URL within 120 s: ${stdout}`)), 120_000).unref();
    });
    assert.equal((await call(`${url}/health`)).body.status, 'ok');
    const page = await fetch(`${url}/`);
    assert.equal(page.status, 200, 'the dashboard is served from the package');
    assert.match(await page.text(), /<script type="module" src="\/ui\/app\.js">/);
    // Signal the server itself (npx is only its parent), then wait for npx to pass its exit on.
    const { pid } = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8')) as { pid: number };
    const exited = once(child, 'exit');
    process.kill(pid, 'SIGTERM');
    const deadline = new Promise((_, reject) => setTimeout(() => reject(new Error('npx did not exit within 30 s of SIGTERM')), 30_000).unref());
    assert.deepEqual(await Promise.race([exited, deadline]), [0, null]);
    assert.equal(existsSync(join(dataDir, 'server.json')), false);
  });

  test('SIGTERM to the npx wrapper (what kill, timeout and process managers send) leaves no orphan', async (t) => {
    const dataDir = join(workDir, 'npx-orphan-data');
    const child = spawn('npx', ['--yes', `./${basename(tarball)}`, '--port', '0', '--data-dir', dataDir], { cwd: workDir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    t.after(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ } });
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL within 60 s: ${stdout}`)), 60_000);
      child.stdout!.on('data', (d) => {
        stdout += d;
        const m = /projdex listening on (\S+)\n/.exec(stdout);
        if (m) { clearTimeout(timer); resolve(m[1]!); }
      });
    });
    child.kill('SIGTERM'); // npx only, not its process group
    const started = Date.now();
    while (existsSync(join(dataDir, 'server.json'))) {
      assert.ok(Date.now() - started < 15_000, 'server.json still there 15 s after the wrapper was killed');
      await new Promise((done) => setTimeout(done, 50));
    }
    await assert.rejects(fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) }));
  });

  test('the packed CLI registers, scans and lists a project, and serves its OpenAPI document', async (t) => {
    const dir = makeTree(t, { 'app/package.json': '{"scripts":{"test":"node --test"}}', 'app/test/a.test.js': "require('node:test')('a', () => {});" });
    execFileSync('tar', ['-xzf', tarball, '-C', dir]);
    const bin = join(dir, 'package', 'dist', 'bin.js');
    const cli = (...args: string[]): string => execFileSync(process.execPath, [bin, ...args, '--data-dir', join(dir, 'data')], { encoding: 'utf8', timeout: 30_000 });
    assert.match(cli('add', join(dir, 'app')), /^added #1 app {2}/);
    assert.match(cli('scan', '1'), /^#1 app: 1 test file, 0 ports/);
    assert.deepEqual(JSON.parse(cli('tests', '1', '--json')).map((x: { file_path: string }) => x.file_path), ['test/a.test.js']);
    const server = spawn(process.execPath, [bin, '--port', '0', '--data-dir', join(dir, 'data')], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    t.after(() => server.kill('SIGKILL'));
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      server.stdout!.on('data', (d) => {
        stdout += d;
        const m = /projdex listening on (\S+)\n/.exec(stdout);
        if (m) resolve(m[1]!);
      });
      server.once('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    const doc = (await call(`${url}/api/openapi.json`)).body;
    assert.equal(doc.info.version, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    assert.match(cli('status'), /^projdex is running at /);
    assert.match(cli('stop'), /^stopped projdex at /);
  });

  /** The first fenced block after `heading` in README.md, verbatim. */
  const readmeBlock = (heading: string): string => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /```js\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf(heading)));
    assert.ok(block, `no js block under ${heading}`);
    return block[1]!;
  };

  test('the README\'s library and node --test examples run verbatim in a default `npm init -y` project', async (t) => {
    const consumer = makeTree(t, {
      // What `npm init -y` writes: no "type" field, so the examples' .mjs names make them ESM.
      'package.json': '{"name":"consumer","version":"1.0.0","main":"index.js","scripts":{"test":"node --test"},"license":"ISC"}',
      'test/a.test.mjs': "import { test } from 'node:test'; test('a', () => {});",
      'example.mjs': readmeBlock('### 2. As a library'),
      'test/projdex.test.mjs': readmeBlock('### 3. Inside `node --test`'),
    });
    execFileSync('npm', ['install', '--silent', '--no-audit', '--no-fund', tarball], { cwd: consumer, env, timeout: 180_000, killSignal: 'SIGKILL' });
    assert.ok(existsSync(join(consumer, 'node_modules', 'projdex', 'dist', 'index.d.ts')));
    const out = execFileSync(process.execPath, ['example.mjs'], { cwd: consumer, encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
    // The scan ran on the compiled scan process (dist/scan/process/process.js) and found the consumer's own tests.
    const [first, second] = out.trim().split('\n');
    assert.equal(first, `2 test files in ${consumer}`);
    assert.equal(second, "[ 'test/a.test.mjs', 'test/projdex.test.mjs' ] []");
    // Without NODE_TEST_CONTEXT, which would make the inner runner report to this one instead of stdout.
    const plain: Record<string, string | undefined> = { ...env, NODE_TEST_CONTEXT: undefined };
    const tested = execFileSync(process.execPath, ['--test', '--test-reporter=tap', 'test/projdex.test.mjs'], { cwd: consumer, encoding: 'utf8', env: plain, timeout: 60_000, killSignal: 'SIGKILL' });
    assert.match(tested, /# pass 1\n/);
  });

  const oldNode = ['/usr/bin/node', '/usr/local/bin/node', '/bin/node'].find((bin) => {
    if (!existsSync(bin)) return false;
    const [major = 0, minor = 0] = execFileSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 30_000 }).trim().split('.').map(Number);
    return major < 22 || (major === 22 && minor < 13);
  });

  test('on a Node without node:sqlite: --help and --version work, starting says what to run instead', { skip: oldNode ? false : 'no Node older than 22.13 on this machine' }, () => {
    const dir = makeTree(suiteScope);
    execFileSync('tar', ['-xzf', tarball, '-C', dir], { timeout: 30_000 });
    const bin = join(dir, 'package', 'dist', 'bin.js');
    const help = execFileSync(oldNode!, [bin, '--help'], { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' });
    assert.match(help, /Usage\n {4}\$ projdex \[command\] \[options\]/);
    assert.equal(execFileSync(oldNode!, [bin, '--version'], { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' }), `${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);
    let result: { status: number | null; stderr: string; stdout: string } = { status: 0, stderr: '', stdout: '' };
    try {
      execFileSync(oldNode!, [bin, '--port', '0'], { encoding: 'utf8', stdio: 'pipe', timeout: 30_000, killSignal: 'SIGKILL' });
    } catch (error) {
      result = error as typeof result;
    }
    assert.equal(result.status, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^projdex needs Node\.js 22\.13 or newer \(for node:sqlite\) and this is Node\.js \d+\.\d+\.\d+; run it with a newer Node in one step: `npx -p node@24 -p projdex projdex`\n$/);
  });

  // The forms the README gives for a tarball, run by the npx of the machine's old Node (so npm itself runs
  // on it, as it does for a user on Node 20): no EBADENGINE warning, and the advice names the tarball.
  test('old Node\'s npx: the tarball alone says which command to run, and the documented form runs it', { skip: oldNode ? false : 'no Node older than 22.13 on this machine' }, () => {
    const oldPath = `${dirname(oldNode!)}${delimiter}${process.env.PATH ?? ''}`;
    const oldEnv = { ...env, PATH: oldPath };
    const npx = join(dirname(oldNode!), 'npx');
    const spec = `./${basename(tarball)}`;
    const alone = spawnSync(npx, ['--yes', spec, '--port', '0'], { cwd: workDir, env: oldEnv, encoding: 'utf8', timeout: 120_000, killSignal: 'SIGKILL' });
    assert.equal(alone.status, 1, alone.stderr);
    assert.equal(alone.stderr, `projdex needs Node.js 22.13 or newer (for node:sqlite) and this is Node.js ${execFileSync(oldNode!, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()}; `
      + `run it with a newer Node in one step: \`npx -p node@24 -p ${spec} projdex\` (from the folder you ran it in)\n`);
    // `status` needs node:sqlite: it answers only if the bin ran on the Node 24 that npx added to PATH.
    const dataDir = join(workDir, 'old-npx-data');
    const documented = spawnSync(npx, ['--yes', '-p', 'node@24', '-p', spec, 'projdex', 'status', '--data-dir', dataDir], { cwd: workDir, env: oldEnv, encoding: 'utf8', timeout: 180_000, killSignal: 'SIGKILL' });
    assert.deepEqual([documented.status, documented.stdout], [3, `projdex is not running; data: ${dataDir}\n`], documented.stderr);
    assert.doesNotMatch(documented.stderr, /EBADENGINE|npm (warn|error)/);
  });
});
