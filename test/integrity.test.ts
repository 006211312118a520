import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { openStore } from '../src/store.ts';
import { makeTree, seededRandom, serve, writeTree } from './helpers.ts';

// Data integrity across processes: file modes, two servers on one database, and SIGKILL at random
// moments. Every write the server answered 2xx must be in the database afterwards.

const BIN = join(import.meta.dirname, '..', 'src', 'bin.ts');

/** The test's environment without PROJDEX_* variables, which would change the child's host or token. */
function withoutProjdexEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PROJDEX_')));
}

/** Spawns `projdex --port 0 --data-dir dir` and resolves once it prints its URL. */
async function spawnServer(dataDir: string): Promise<{ child: ChildProcess; url: string; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, [BIN, '--port', '0', '--data-dir', dataDir], {
    env: withoutProjdexEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => { err += d; });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const found = /listening on (http:\/\/\S+)/.exec(out);
      if (found) resolve(found[1]!);
    });
    void exited.then(() => reject(new Error(`server exited before listening: ${err}`)));
  });
  return { child, url, exited };
}

/** fetch that never throws: a killed server gives `status: 0`. */
async function request(url: string, method = 'GET', body?: unknown): Promise<{ status: number; body: any }> {
  try {
    const res = await fetch(url, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  } catch {
    return { status: 0, body: undefined };
  }
}

suite('data directory', () => {
  test('a data dir created by the server is 0700; the database, its WAL files and server.json are 0600', async (t) => {
    const dataDir = join(makeTree(t), 'deep', 'data');
    const { url } = await serve(t, { dataDir });
    assert.equal((await request(`${url}/api/settings/k`, 'PUT', { value: 'v' })).status, 200);
    assert.equal(statSync(dataDir).mode & 0o777, 0o700);
    for (const name of ['projdex.db', 'projdex.db-wal', 'projdex.db-shm', 'server.json']) {
      const file = join(dataDir, name);
      assert.ok(existsSync(file), name);
      assert.equal(statSync(file).mode & 0o777, 0o600, name);
    }
  });
});

suite('durability settings', () => {
  test('the server\'s own connection runs WAL with synchronous NORMAL or FULL, and the file on disk is WAL', async (t) => {
    const dataDir = join(makeTree(t), 'data');
    const running = await serve(t, { dataDir });
    assert.equal((await request(`${running.url}/api/settings/k`, 'PUT', { value: 'v' })).status, 200);
    // synchronous lives on the connection, not in the file: ask the connection the server opened.
    // OFF (0) would lose answered writes on power loss, which no kill -9 can show.
    const pragmas = running.store.pragmas();
    assert.equal(pragmas.journal_mode, 'wal');
    assert.ok(pragmas.synchronous === 1 || pragmas.synchronous === 2, `synchronous = ${pragmas.synchronous}`);
    assert.equal(pragmas.foreign_keys, 1);
    assert.ok(pragmas.busy_timeout >= 1000, `busy_timeout = ${pragmas.busy_timeout}`);
    // WAL is recorded in the database file itself: header bytes 18 and 19 (read/write format) are 2.
    const file = join(dataDir, 'projdex.db');
    const header = readFileSync(file).subarray(0, 20);
    assert.equal(header.subarray(0, 16).toString('latin1'), 'SQLite format 3\0');
    assert.deepEqual([header[18], header[19]], [2, 2]);
    const { DatabaseSync } = await import('node:sqlite');
    const other = new DatabaseSync(file, { readOnly: true });
    try {
      assert.equal(other.prepare('PRAGMA journal_mode').get()?.journal_mode, 'wal');
    } finally {
      other.close();
    }
  });
});

suite('two servers on one data dir', () => {
  test('interleaved writes from two processes all land, and the database checks ok', async (t) => {
    const root = makeTree(t);
    const dataDir = join(root, 'data');
    const dirs = Array.from({ length: 30 }, (_, i) => `p${i}/`);
    writeTree(root, Object.fromEntries(dirs.map((d) => [d, ''])));
    const a = await serve(t, { dataDir });
    const b = await spawnServer(dataDir);
    t.after(() => b.child.kill('SIGKILL'));
    const servers = [a.url, b.url];

    const writes = [];
    for (let i = 0; i < 200; i++) writes.push(request(`${servers[i % 2]}/api/settings/key${i}`, 'PUT', { value: `v${i}` }));
    for (let i = 0; i < 30; i++) writes.push(request(`${servers[i % 2]}/api/projects`, 'POST', { name: `n${i}`, path: join(root, `p${i}`) }));
    const results = await Promise.all(writes);
    assert.deepEqual(results.filter((r) => r.status !== 200 && r.status !== 201).map((r) => [r.status, r.body]), []);
    const ids = results.slice(200).map((r) => r.body.id as number);
    const tagged = await Promise.all(ids.map((id, i) => request(`${servers[(i + 1) % 2]}/api/projects/${id}`, 'PUT', { tags: [`t${i}`] })));
    assert.deepEqual(tagged.map((r) => r.status), ids.map(() => 200));

    for (const url of servers) {
      const settings = (await request(`${url}/api/settings`)).body;
      assert.equal(Object.keys(settings).length, 200);
      for (let i = 0; i < 200; i++) assert.equal(settings[`key${i}`], `v${i}`);
      const projects = (await request(`${url}/api/projects`)).body as Array<{ id: number; tags: string[] }>;
      assert.equal(projects.length, 30);
      assert.deepEqual(ids.map((id) => projects.find((p) => p.id === id)?.tags), ids.map((_, i) => [`t${i}`]));
    }
    assert.equal(a.store.integrityCheck(), 'ok');
  });

  test('concurrent registrations of one path across the two servers give exactly one 201', async (t) => {
    const root = makeTree(t, { 'same/': '' });
    const dataDir = join(root, 'data');
    const a = await serve(t, { dataDir });
    const b = await spawnServer(dataDir);
    t.after(() => b.child.kill('SIGKILL'));
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => request(`${[a.url, b.url][i % 2]}/api/projects`, 'POST', { name: `n${i}`, path: join(root, 'same') })));
    assert.deepEqual(results.map((r) => r.status).sort(), [201, ...Array(29).fill(409)]);
    const created = results.find((r) => r.status === 201)!.body;
    for (const r of results.filter((x) => x.status === 409)) assert.deepEqual(r.body.project, created);
  });
});

suite('SIGKILL at random moments', () => {
  test('after each of 20 kills the database opens, checks ok and holds every answered write', { timeout: 60_000 }, async (t) => {
    const seed = Number(process.env.PROJDEX_KILL_SEED ?? 20260101);
    const random = seededRandom(seed);
    const root = makeTree(t);
    const dataDir = join(root, 'data');
    // One project big enough that a scan spans many event-loop turns, and fresh directories to register.
    const files: Record<string, string> = { 'big/package.json': '{"devDependencies":{"vitest":"3"},"scripts":{"dev":"vite --port 5173"}}' };
    for (let i = 0; i < 40; i++) for (let j = 0; j < 10; j++) files[`big/pkg${i}/src/f${j}.test.ts`] = "it('x', () => {});";
    for (let i = 0; i < 200; i++) files[`fresh/d${i}/`] = '';
    writeTree(root, files);

    const settings = new Map<string, string>(); // answered PUT /api/settings/:key
    // Answered POSTs, and for tags every value the project may now hold: the last answered PUT, plus
    // any later PUT cut off by the kill (it may have committed before its answer was lost).
    const projects = new Map<number, { path: string; tags?: string[][] }>();
    const scans = new Map<number, number>(); // project id -> testsFound of an answered scan
    let fresh = 0;
    let bigId = 0;

    for (let round = 0; round < 20; round++) {
      const { child, url, exited } = await spawnServer(dataDir);
      t.after(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
      if (round === 0) {
        const created = await request(`${url}/api/projects`, 'POST', { name: 'big', path: join(root, 'big') });
        assert.equal(created.status, 201);
        bigId = created.body.id;
        projects.set(bigId, { path: created.body.path });
        // One answered scan before any kill, so every later round checks a scan's rows survive.
        const scanned = await request(`${url}/api/projects/${bigId}/scan`, 'POST');
        assert.equal(scanned.status, 200);
        scans.set(bigId, scanned.body.testsFound);
      }

      let killed = false;
      const worker = async (w: number): Promise<void> => {
        for (let n = 0; !killed; n++) {
          const pick = (w + n) % 5;
          if (pick === 0 || pick === 1) {
            const key = `r${round}w${w}n${n}`;
            const value = `${key}-${'x'.repeat(n % 50)}`;
            const res = await request(`${url}/api/settings/${key}`, 'PUT', { value });
            if (res.status === 200) settings.set(key, value);
          } else if (pick === 2 && fresh < 200) {
            const path = join(root, 'fresh', `d${fresh++}`);
            const res = await request(`${url}/api/projects`, 'POST', { name: `f${fresh}`, path });
            if (res.status === 201) projects.set(res.body.id, { path: res.body.path });
          } else if (pick === 3) {
            const tags = [`round${round}`, `w${w}`];
            const id = [...projects.keys()][n % projects.size]!;
            // Only one worker tags a given project per round, so the last answered tags are the truth.
            if (id % 4 !== w) continue;
            const res = await request(`${url}/api/projects/${id}`, 'PUT', { tags });
            const entry = projects.get(id)!;
            if (res.status === 200) entry.tags = [tags];
            else if (entry.tags) entry.tags.push(tags);
          } else {
            const res = await request(`${url}/api/projects/${bigId}/scan`, 'POST');
            if (res.status === 200) scans.set(bigId, res.body.testsFound);
          }
        }
      };
      const work = Promise.all([0, 1, 2, 3].map(worker));
      // Wide enough that scans (whose first one per process also starts the scanning thread) finish in
      // some rounds and are cut off in others.
      await new Promise((r) => setTimeout(r, 50 + random() * 550));
      child.kill('SIGKILL');
      killed = true;
      await exited;
      await work;

      const store = openStore(join(dataDir, 'projdex.db'));
      try {
        assert.equal(store.integrityCheck(), 'ok', `round ${round} (seed ${seed})`);
        const saved = store.getSettings();
        for (const [key, value] of settings) assert.equal(saved[key], value, `setting ${key} lost in round ${round} (seed ${seed})`);
        for (const [id, expected] of projects) {
          const project = store.getProject(id);
          assert.equal(project?.path, expected.path, `project ${id} lost in round ${round} (seed ${seed})`);
          if (expected.tags) {
            assert.ok(expected.tags.some((tags) => JSON.stringify(tags) === JSON.stringify(project.tags)), `tags of ${id} in round ${round} (seed ${seed})`);
          }
        }
        for (const [id, found] of scans) assert.equal(store.listTests(id).length, found, `tests of ${id} in round ${round} (seed ${seed})`);
      } finally {
        store.close();
      }
    }
    assert.ok(settings.size > 20 && scans.size === 1, `the workload made progress (${settings.size} settings)`);
  });
});
