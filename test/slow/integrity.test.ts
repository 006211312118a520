import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { openStore } from '../../src/core/store/store.ts';
import { makeTree, seededRandom, serve, spawnBin, writeTree, type Child } from '../helpers/index.ts';

interface AfterHook { after(fn: () => unknown): void }

// Data integrity across processes: file modes, two servers on one database, and SIGKILL at random
// moments. Every write the server answered 2xx must be in the database afterwards.

/** Spawns `projdex --port 0 --data-dir dir` and resolves once it prints its URL (deadline: the test fails). */
async function spawnServer(t: AfterHook, dataDir: string): Promise<{ child: Child['child']; url: string; exit: Child['exit'] }> {
  const running = spawnBin(t, ['--port', '0', '--data-dir', dataDir]);
  const [, url] = await running.waitFor(/listening on (http:\/\/\S+)/);
  return { child: running.child, url: url!, exit: running.exit };
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
    // The CLI server owns the data dir (server.json); the library server shares only its database.
    const b = await spawnServer(t, dataDir);
    const a = await serve(t, { db: join(dataDir, 'projdex.db') });
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
    // The CLI server owns the data dir (server.json); the library server shares only its database.
    const b = await spawnServer(t, dataDir);
    const a = await serve(t, { db: join(dataDir, 'projdex.db') });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => request(`${[a.url, b.url][i % 2]}/api/projects`, 'POST', { name: `n${i}`, path: join(root, 'same') })));
    assert.deepEqual(results.map((r) => r.status).sort(), [201, ...Array(29).fill(409)]);
    const created = results.find((r) => r.status === 201)!.body;
    for (const r of results.filter((x) => x.status === 409)) assert.deepEqual(r.body.project, created);
  });
});

/** One operation of the kill test; the whole plan comes from the seed before any server starts. */
type KillOp =
  | { kind: 'setting'; key: string; value: string }
  | { kind: 'create'; dir: number }
  | { kind: 'tag'; target: number; tags: string[] }
  | { kind: 'scan' };

const ROUNDS = 20;
/** Requests sent together at the end of a round; the kill comes as soon as the first one is answered. */
const BURST = 4;
/** Projects registered in round 0 whose tags later rounds change (fixed ids, so the plan needs no answers). */
const TAGGED = BURST;

function killPlan(seed: number): Array<{ before: KillOp[]; burst: KillOp[] }> {
  const random = seededRandom(seed);
  const int = (n: number): number => Math.floor(random() * n);
  let fresh = 0;
  const op = (round: number, i: number, slot: number | undefined): KillOp => {
    switch (int(5)) {
      case 0: case 1: return { kind: 'setting', key: `r${round}o${i}`, value: `v${i}-${'x'.repeat(int(50))}` };
      case 2: return { kind: 'create', dir: fresh++ };
      // In a burst, slot k tags only project k: concurrent writes never race on one row.
      case 3: return { kind: 'tag', target: slot ?? int(TAGGED), tags: [`round${round}`, `o${i}`] };
      default: return { kind: 'scan' };
    }
  };
  return Array.from({ length: ROUNDS }, (_, round) => ({
    before: Array.from({ length: 2 + int(10) }, (_, i) => op(round, i, undefined)),
    burst: Array.from({ length: BURST }, (_, k) => op(round, 100 + k, k)),
  }));
}

suite('SIGKILL at random moments', () => {
  test(`after each of ${ROUNDS} kills the database opens, checks ok and holds every answered write`, { timeout: 180_000 }, async (t) => {
    // The seed fixes every operation and the point of each kill (after so many answered requests, while
    // a burst is in flight): PROJDEX_KILL_SEED replays the same sequence. Only which in-flight requests
    // commit before the kill depends on timing, and the checks allow exactly that.
    const seed = Number(process.env.PROJDEX_KILL_SEED ?? 20260101);
    const plan = killPlan(seed);
    assert.deepEqual(killPlan(seed), plan, 'the plan replays from the seed');
    const root = makeTree(t);
    const dataDir = join(root, 'data');
    // One project big enough that a scan spans many event-loop turns, and fresh directories to register.
    const files: Record<string, string> = { 'big/package.json': '{"devDependencies":{"vitest":"3"},"scripts":{"dev":"vite --port 5173"}}' };
    for (let i = 0; i < 40; i++) for (let j = 0; j < 10; j++) files[`big/pkg${i}/src/f${j}.test.ts`] = "it('x', () => {});";
    const freshDirs = plan.flatMap((round) => [...round.before, ...round.burst]).filter((op) => op.kind === 'create').length;
    for (let i = 0; i < freshDirs; i++) files[`fresh/d${i}/`] = '';
    for (let i = 0; i < TAGGED; i++) files[`tagged/t${i}/`] = '';
    writeTree(root, files);

    const settings = new Map<string, string>(); // answered PUT /api/settings/:key
    // Answered POSTs, and for tags every value the project may now hold: the last answered PUT, plus
    // any later PUT cut off by the kill (it may have committed before its answer was lost).
    const projects = new Map<number, { path: string; tags?: string[][] }>();
    let scanned: number | undefined; // testsFound of an answered scan of big
    let bigId = 0;
    const tagged: number[] = [];

    const perform = async (url: string, op: KillOp): Promise<void> => {
      if (op.kind === 'setting') {
        const res = await request(`${url}/api/settings/${op.key}`, 'PUT', { value: op.value });
        if (res.status === 200) settings.set(op.key, op.value);
      } else if (op.kind === 'create') {
        const res = await request(`${url}/api/projects`, 'POST', { name: `f${op.dir}`, path: join(root, 'fresh', `d${op.dir}`) });
        if (res.status === 201) projects.set(res.body.id, { path: res.body.path });
      } else if (op.kind === 'tag') {
        const id = tagged[op.target]!;
        const res = await request(`${url}/api/projects/${id}`, 'PUT', { tags: op.tags });
        const entry = projects.get(id)!;
        if (res.status === 200) entry.tags = [op.tags];
        else if (entry.tags) entry.tags.push(op.tags);
        else entry.tags = [[], op.tags];
      } else {
        const res = await request(`${url}/api/projects/${bigId}/scan`, 'POST');
        if (res.status === 200) scanned = res.body.testsFound;
      }
    };

    for (const [round, { before, burst }] of plan.entries()) {
      const { child, url, exit } = await spawnServer(t, dataDir);
      if (round === 0) {
        const created = await request(`${url}/api/projects`, 'POST', { name: 'big', path: join(root, 'big') });
        assert.equal(created.status, 201);
        bigId = created.body.id;
        projects.set(bigId, { path: created.body.path });
        for (let i = 0; i < TAGGED; i++) {
          const res = await request(`${url}/api/projects`, 'POST', { name: `t${i}`, path: join(root, 'tagged', `t${i}`) });
          assert.equal(res.status, 201);
          tagged.push(res.body.id);
          projects.set(res.body.id, { path: res.body.path, tags: [[]] });
        }
        // One answered scan before any kill, so every later round checks a scan's rows survive.
        await perform(url, { kind: 'scan' });
        assert.ok(scanned !== undefined && scanned > 0);
      }
      for (const op of before) await perform(url, op);
      // The burst goes out together; the first answer triggers the kill while the rest are in flight.
      const inFlight = burst.map((op) => perform(url, op));
      await Promise.race(inFlight);
      child.kill('SIGKILL');
      assert.equal((await exit()).signal, 'SIGKILL', `round ${round}: the server was still running at the kill`);
      await Promise.all(inFlight);

      const store = openStore(join(dataDir, 'projdex.db'));
      try {
        const label = `round ${round} (seed ${seed})`;
        assert.equal(store.integrityCheck(), 'ok', label);
        const saved = store.getSettings();
        for (const [key, value] of settings) assert.equal(saved[key], value, `setting ${key} lost in ${label}`);
        for (const [id, expected] of projects) {
          const project = store.getProject(id);
          assert.equal(project?.path, expected.path, `project ${id} lost in ${label}`);
          if (expected.tags) {
            assert.ok(expected.tags.some((tags) => JSON.stringify(tags) === JSON.stringify(project.tags)), `tags of ${id} in ${label}: ${JSON.stringify(project.tags)}`);
          }
        }
        assert.equal(store.listTests(bigId).length, scanned, `tests of big in ${label}`);
      } finally {
        store.close();
      }
    }
    assert.ok(settings.size > 20, `the plan made progress (${settings.size} settings)`);
  });
});
