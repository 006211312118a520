import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { suite, test, type TestContext } from 'node:test';
import { call, makeTree } from '../helpers/index.ts';
import { BIN, DEADLINE_MS, eventually, portRange, run, start, waitFor } from '../helpers/cli.ts';

const serverJson = (dataDir: string): { url: string; pid: number; instance: string } => JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8'));

/** Resolves once nothing answers on `url` any more. */
async function down(url: string): Promise<void> {
  const started = Date.now();
  for (;;) {
    try {
      await fetch(`${url}/health`, { signal: AbortSignal.timeout(500) });
    } catch {
      return;
    }
    if (Date.now() - started > 10_000) throw new Error(`${url} still answers`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

suite('one server per data dir', () => {
  test('a second start prints the running URL and pid and exits 0, leaving server.json alone', async (t) => {
    const dataDir = join(makeTree(t), 'data');
    const env = { PROJDEX_PORT_RANGE: portRange() };
    const first = await start(t, ['--data-dir', dataDir], env);
    const before = readFileSync(join(dataDir, 'server.json'), 'utf8');
    const second = await run(['serve', '--data-dir', dataDir], env);
    assert.deepEqual([second.code, second.stdout, second.stderr], [0, `projdex is already running at ${first.url} (pid ${first.child.pid})\n`, '']);
    assert.equal(readFileSync(join(dataDir, 'server.json'), 'utf8'), before);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);
    assert.equal(existsSync(join(dataDir, 'server.json')), false);
  });

  test('a stale server.json (dead pid) is replaced, and the server removes only its own', async (t) => {
    const dataDir = join(makeTree(t), 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((done) => dead.once('exit', done));
    writeFileSync(join(dataDir, 'server.json'), JSON.stringify({ url: 'http://127.0.0.1:1', port: 1, pid: dead.pid, instance: 'old' }), { mode: 0o600 });
    const server = await start(t, ['--data-dir', dataDir], { PROJDEX_PORT_RANGE: portRange() });
    assert.equal(serverJson(dataDir).pid, server.child.pid);
    // Someone else's file now: the exiting server must leave it.
    writeFileSync(join(dataDir, 'server.json'), JSON.stringify({ url: 'http://127.0.0.1:2', port: 2, pid: 1, instance: 'other' }));
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    assert.equal(serverJson(dataDir).instance, 'other');
  });

  test('a server.json planted as a symlink is replaced, not written through', async (t) => {
    const root = makeTree(t);
    const dataDir = join(root, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(join(root, 'target'), 'keep');
    symlinkSync(join(root, 'target'), join(dataDir, 'server.json'));
    const server = await start(t, ['--data-dir', dataDir], { PROJDEX_PORT_RANGE: portRange() });
    assert.equal(readFileSync(join(root, 'target'), 'utf8'), 'keep');
    assert.equal(serverJson(dataDir).pid, server.child.pid);
    server.child.kill('SIGTERM');
    await server.exited;
  });
});

suite('no orphans', () => {
  /** Starts the bin under `wrapper` (its command and args, given the bin's own command line), kills it, waits. */
  const serverOutlives = async (t: TestContext, wrapper: (serve: string) => [string, string[]], what: string) => {
    const dataDir = join(makeTree(t), 'data');
    const [command, args] = wrapper(`"${process.execPath}" "${BIN}" --data-dir "${dataDir}"; :`);
    // npm and npx set npm_lifecycle_event for the command they run ("npx" for npx): the wrapper projdex follows.
    const child = spawn(command, args, {
      env: { ...process.env, PROJDEX_PORT_RANGE: portRange(), npm_lifecycle_event: 'npx' }, stdio: ['ignore', 'pipe', 'pipe'], timeout: DEADLINE_MS,
    });
    t.after(() => { try { process.kill(serverJson(dataDir).pid, 'SIGKILL'); } catch { /* gone */ } });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const [, url] = await waitFor(() => stdout, /projdex listening on (\S+)\n/);
    child.kill('SIGKILL');
    await eventually(() => !existsSync(join(dataDir, 'server.json')), `server.json removed after ${what} died`);
    await down(url!);
    assert.match(stderr, /exited; shutting down \(start it with --keep-running to keep serving after that\)\n$/);
  };

  test('started by npx, the server stops when its parent is killed (re-parented), and removes server.json', async (t) => {
    // A wrapper that stays the parent, as `sh -c` under npm does, then dies by SIGKILL.
    await serverOutlives(t, (serve) => ['sh', ['-c', serve]], 'the parent');
  });

  test('under npm-style nesting (a killed wrapper above a lingering sh -c) the server stops too', async (t) => {
    const script = `require('node:child_process').spawn('sh', ['-c', process.argv[1]], { stdio: 'inherit' });`;
    await serverOutlives(t, (serve) => [process.execPath, ['-e', script, serve]], 'the wrapper');
  });

  test('--keep-running keeps serving after the parent dies', async (t) => {
    const dataDir = join(makeTree(t), 'data');
    const wrapper = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" --keep-running --data-dir "${dataDir}"; :`], {
      env: { ...process.env, PROJDEX_PORT_RANGE: portRange(), npm_lifecycle_event: 'npx' }, stdio: ['ignore', 'pipe', 'pipe'], timeout: DEADLINE_MS,
    });
    let stdout = '';
    wrapper.stdout!.on('data', (d) => (stdout += d));
    const [, url] = await waitFor(() => stdout, /projdex listening on (\S+)\n/);
    const { pid } = serverJson(dataDir);
    t.after(() => { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } });
    wrapper.kill('SIGKILL');
    await new Promise((done) => setTimeout(done, 1500));
    assert.equal((await call(`${url}/health`)).body.status, 'ok');
    const stopped = await run(['stop', '--data-dir', dataDir]);
    assert.equal(stopped.stdout, `stopped projdex at ${url} (pid ${pid})\n`);
  });
});

suite('background starts keep running', () => {
  // A shell script that starts the server in the background and exits, as users write one; no npm
  // variables, so nothing says a wrapper started it (the suite itself may run under `npm test`).
  const starts: Array<[string, (serve: string) => string]> = [
    ['`projdex serve > log 2>&1 &` in a script', (serve) => `${serve} > "$LOG" 2>&1 &`],
    ['nohup', (serve) => `nohup ${serve} > "$LOG" 2>&1 &`],
    ['setsid', (serve) => `setsid ${serve} > "$LOG" 2>&1 < /dev/null &`],
  ];
  for (const [what, line] of starts) {
    test(`${what}: the server still answers after the script exited`, async (t) => {
      const dataDir = join(makeTree(t), 'data');
      const log = join(dataDir, '..', 'log');
      const serve = `"${process.execPath}" "${BIN}" serve --port 0 --data-dir "${dataDir}"`;
      const env: Record<string, string | undefined> = { ...process.env, LOG: log };
      for (const key of Object.keys(env)) if (key.startsWith('npm_')) delete env[key];
      // The script goes on until the server is up (as one that then uses it would), so the server has a live
      // parent to watch when the script exits.
      const wait = 'n=0; until grep -q "listening on" "$LOG" 2>/dev/null || [ $n -gt 300 ]; do sleep 0.1; n=$((n+1)); done';
      const script = spawnSync('sh', ['-c', `${line(serve)}\n${wait}\nexit 0`], { env, timeout: DEADLINE_MS, stdio: 'ignore' });
      assert.equal(script.status, 0);
      await eventually(() => existsSync(log) && /projdex listening on \S+\n/.test(readFileSync(log, 'utf8')), 'the URL in the log');
      const [, url] = /projdex listening on (\S+)\n/.exec(readFileSync(log, 'utf8'))!;
      const { pid } = serverJson(dataDir);
      t.after(() => { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } });
      // The guard checks every 500 ms: three checks after the script's exit.
      await new Promise((done) => setTimeout(done, 1600));
      assert.equal((await call(`${url}/health`)).body.status, 'ok', readFileSync(log, 'utf8'));
      const stopped = await run(['stop', '--data-dir', dataDir]);
      assert.equal(stopped.code, 0, stopped.stderr);
      await down(url!);
    });
  }
});

suite('start-up errors name the fix', () => {
  test('a data dir writable by others, one that is a file, and a symlinked database are refused', async (t) => {
    const root = makeTree(t);
    mkdirSync(join(root, 'open'));
    chmodSync(join(root, 'open'), 0o777);
    writeFileSync(join(root, 'file'), '');
    mkdirSync(join(root, 'linked'), { mode: 0o700 });
    writeFileSync(join(root, 'elsewhere.db'), '');
    symlinkSync(join(root, 'elsewhere.db'), join(root, 'linked', 'projdex.db'));
    const cases: Array<[string, RegExp]> = [
      [join(root, 'open'), /^ERROR: The data dir \S+open is writable by group or others \(mode 0777\); run `chmod 700 \S+open` or choose another with --data-dir DIR\.\n/],
      [join(root, 'file'), /^ERROR: The data dir \S+file is not a directory; choose another with --data-dir DIR\.\n/],
      [join(root, 'file', 'sub'), /^ERROR: Cannot create the data dir \S+sub: a part of that path is a file, not a directory; choose another with --data-dir DIR\.\n/],
      [join(root, 'linked'), /projdex\.db is not a regular file \(a symlink\?\); projdex will not follow it/],
    ];
    for (const [dir, pattern] of cases) {
      for (const args of [['serve'], ['ls']]) {
        const result = await run([...args, '--data-dir', dir], { PROJDEX_PORT_RANGE: portRange() });
        assert.equal(result.code, 1, `${args[0]} ${dir}: ${result.stderr}`);
        assert.match(result.stderr, pattern);
        assert.doesNotMatch(result.stderr, /\bE(ACCES|NOTDIR|EXIST|PERM|NOENT|LOOP)\b|\n\s+at /, 'no raw errno or stack');
      }
    }
    assert.equal(readFileSync(join(root, 'elsewhere.db'), 'utf8'), '', 'the symlink target was not touched');
  });

  test('a taken explicit port says so; a bad PROJDEX_PORT_RANGE or --port-range is a usage error', async (t) => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise((done) => blocker.close(done)));
    const port = (blocker.address() as { port: number }).port;
    const data = ['--data-dir', join(makeTree(t), 'data')];
    const taken = await run(['--port', String(port), ...data]);
    assert.equal(taken.code, 1);
    assert.equal(taken.stderr, `ERROR: Port ${port} on 127.0.0.1 is in use by another program; choose another with --port N (0 picks any free port).\n`);
    for (const [env, args] of [[{ PROJDEX_PORT_RANGE: '5-1' }, []], [{}, ['--port-range', 'abc']], [{ PROJDEX_PORT_RANGE: '1-70000' }, []]] as const) {
      const bad = await run([...args, ...data], env);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /^ERROR: (PROJDEX_PORT_RANGE|--port-range) must be A-B with 1 <= A <= B <= 65535/);
    }
  });

  test('PROJDEX_PORT_RANGE and --port-range choose the candidate ports', async (t) => {
    const range = portRange();
    const [a] = range.split('-').map(Number);
    const viaEnv = await start(t, ['--data-dir', join(makeTree(t), 'data')], { PROJDEX_PORT_RANGE: range });
    assert.equal(viaEnv.url, `http://127.0.0.1:${a}`);
    const viaFlag = await start(t, ['--data-dir', join(makeTree(t), 'data'), '--port-range', range]);
    assert.equal(viaFlag.url, `http://127.0.0.1:${a! + 1}`);
  });

  test('--host 0.0.0.0 prints local and network URLs, and a generated token', async (t) => {
    const dataDir = join(makeTree(t), 'data');
    const server = await start(t, ['--host', '0.0.0.0', '--data-dir', dataDir, '--log'], { PROJDEX_PORT_RANGE: portRange() });
    const port = new URL(server.url).port;
    await waitFor(server.stdout, /^token: /m);
    assert.match(server.stdout(), new RegExp(`^  Local:   http://127\\.0\\.0\\.1:${port}$`, 'm'));
    const local = `http://127.0.0.1:${port}`;
    assert.equal((await call(`${local}/health`)).body.status, 'ok');
    assert.equal((await call(`${local}/api/projects`)).status, 401);
    for (const [, address] of server.stdout().matchAll(/^  Network: (\S+)$/gm)) assert.match(address!, new RegExp(`^http://[\\d.[\\]:a-f]+:${port}$`));
    // The commands find the token in server.json (0600, in a 0700 data dir).
    const ls = await run(['ls', '--json', '--data-dir', dataDir]);
    assert.deepEqual([ls.code, JSON.parse(ls.stdout)], [0, []], ls.stderr);
    assert.match(server.stderr(), /GET \/api\/projects 200 /);
  });
});

suite('old Node', () => {
  const oldNode = ['/usr/bin/node', '/usr/local/bin/node'].find((bin) => existsSync(bin) && realVersion(bin) < 22.13);
  function realVersion(bin: string): number {
    const [major = 0, minor = 0] = execFileSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 }).trim().split('.').map(Number);
    return major + minor / 100;
  }

  test('npm start / npm test on the machine\'s old Node (scripts disabled at install) say so in one sentence', { skip: oldNode ? false : 'no Node older than 22.13 here' }, () => {
    const script = join(import.meta.dirname, '..', '..', 'scripts', 'need-node.mjs');
    const result = spawnSync(oldNode!, [script], { encoding: 'utf8', timeout: 10_000 });
    assert.equal(result.status, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^projdex's npm scripts need Node\.js 22\.13 or newer and found Node\.js [\d.]+: .+`npm rebuild node --ignore-scripts=false` in this clone, then the same npm command again\.\n$/);
    assert.equal(spawnSync(process.execPath, [script], { timeout: 10_000 }).status, 0);
  });
});
