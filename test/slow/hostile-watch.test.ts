/**
 * Watch mode under changes that once left it blind or held the HTTP thread: a folder (and the root)
 * deleted and made again, and a big folder renamed into a project while /health is asked.
 */
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test, type TestContext } from 'node:test';
import { createEvents, type ProjdexEvent } from '../../src/core/events.ts';
import { createScanner } from '../../src/core/scanner.ts';
import { openStore } from '../../src/core/store/store.ts';
import { startWatching } from '../../src/core/watch.ts';
import { call, makeTree, serve } from '../helpers/index.ts';
import { probeHealth } from '../helpers/health.ts';

const PROJECT = {
  'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29' } }),
  'src/a.test.js': "test('a', () => {});\n",
};

/** Resolves once a scan of `id` finds `count` tests; rejects after `ms`. */
function scanFinding(events: ReturnType<typeof createEvents>, id: number, count: number, ms = 15_000): Promise<ProjdexEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { off(); reject(new Error(`no scan finding ${count} tests within ${ms} ms`)); }, ms);
    const off = events.subscribe((e) => {
      if (e.type === 'scan.finished' && e.data.id === id && e.data.testsFound === count) { clearTimeout(timer); off(); resolve(e); }
    });
  });
}

async function watched(t: TestContext, root: string) {
  const store = openStore(':memory:');
  const events = createEvents();
  const scanner = createScanner(store, {}, {}, { events });
  t.after(async () => { await scanner.close(); store.close(); });
  const project = store.insertProject({ name: 'p', path: root })!;
  const watching = startWatching({ store, scanner, events, debounceMs: 20, pollMs: 300, recursive: false });
  t.after(() => watching.close());
  await watching.ready();
  return { events, id: project.id, watching };
}

suite('watch mode does not go blind', { timeout: 120_000 }, () => {
  test('a folder deleted and made again at once is watched again', async (t) => {
    const root = makeTree(t, PROJECT);
    const { events, id } = await watched(t, root);
    const first = scanFinding(events, id, 0);
    rmSync(join(root, 'src'), { recursive: true });
    mkdirSync(join(root, 'src'));
    await first;
    // Seen only if the new src/ is watched (the root's own watcher sees nothing of a file inside it).
    const seen = scanFinding(events, id, 1);
    await new Promise((r) => setTimeout(r, 200));
    writeFileSync(join(root, 'src/b.test.js'), "test('b', () => {});\n");
    await seen;
  });

  test('the root deleted and made again is watched again', async (t) => {
    const root = makeTree(t, PROJECT);
    const { events, id, watching } = await watched(t, root);
    rmSync(root, { recursive: true });
    await new Promise((r) => setTimeout(r, 500));
    mkdirSync(join(root, 'src'), { recursive: true });
    writeFileSync(join(root, 'package.json'), PROJECT['package.json']);
    await scanFinding(events, id, 0);
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(watching.status().polled, 0, 'watched again, not polled');
    const seen = scanFinding(events, id, 1);
    writeFileSync(join(root, 'src/b.test.js'), "test('b', () => {});\n");
    await seen;
  });
});

test('a folder of 200k files renamed into a watched project leaves /health answering', { timeout: 300_000 }, async (t) => {
  const root = makeTree(t, PROJECT);
  const outside = makeTree(t);
  const big = join(outside, 'big');
  mkdirSync(big);
  for (let i = 0; i < 200; i++) mkdirSync(join(big, `d${i}`));
  for (let i = 0; i < 200_000; i++) writeFileSync(join(big, i % 2 ? 'flat' : `d${i % 200}`, `f${i}`).replace('/flat/', '/'), '');
  const server = await serve(t, { watch: true });
  await call(`${server.url}/api/projects`, 'POST', { name: 'w', path: root });
  await new Promise((r) => setTimeout(r, 2500)); // picked up by the watcher's sync

  const health = probeHealth(server.url, 10);
  for (let i = 0; i < 4; i++) {
    renameSync(i === 0 ? big : join(root, `big${i - 1}`), join(root, `big${i}`));
    await new Promise((r) => setTimeout(r, 1500));
  }
  const worst = await health.stop();
  t.diagnostic(`worst /health wait while 4 renames of a 200k-file folder were watched: ${worst.toFixed(1)} ms`);
  assert.ok(worst < 1_000, `/health waited ${worst.toFixed(0)} ms`);
});

test('registering 500 roots with watch on does not list every project again for each one', { timeout: 120_000 }, async (t) => {
  const store = openStore(':memory:');
  const events = createEvents();
  const scanner = createScanner(store, {}, {}, { events });
  t.after(async () => { await scanner.close(); store.close(); });
  // The real store, with its project listings counted: each one reads every row.
  let listings = 0;
  const counted = Object.assign(Object.create(store), { listProjects: () => { listings++; return store.listProjects(); } }) as typeof store;
  const watching = startWatching({ store: counted, scanner, events, recursive: false, syncMs: 60_000 });
  t.after(() => watching.close());
  const parent = makeTree(t);
  for (let i = 0; i < 500; i++) {
    mkdirSync(join(parent, `p${i}`));
    const project = store.insertProject({ name: `p${i}`, path: join(parent, `p${i}`) })!;
    events.emit('project.created', { project });
  }
  await watching.ready();
  assert.equal(watching.status().watched, 500);
  assert.ok(listings <= 2, `${listings} listings of every project`);
});
