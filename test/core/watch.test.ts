import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { createEvents, type ProjdexEvent } from '../../src/core/events.ts';
import { createScanner } from '../../src/core/scanner.ts';
import { openStore } from '../../src/core/store/store.ts';
import { startWatching } from '../../src/core/watch.ts';
import { call, makeTree, serve } from '../helpers/index.ts';

const PROJECT = {
  'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29' } }),
  'src/a.test.js': "test('a', () => {});\n",
};

/** The next event of `type` matching `when`, or a rejection after `ms`. */
function nextEvent(events: { subscribe(l: (e: ProjdexEvent) => void): () => void }, type: string, when: (e: ProjdexEvent) => boolean = () => true, ms = 10_000): Promise<ProjdexEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { off(); reject(new Error(`no ${type} event within ${ms} ms`)); }, ms);
    const off = events.subscribe((e) => {
      if (e.type === type && when(e)) { clearTimeout(timer); off(); resolve(e); }
    });
  });
}

const tests = async (url: string, id: number): Promise<string[]> => (await call(`${url}/api/projects/${id}/tests`)).body.map((t: { file_path: string }) => t.file_path);

suite('watch mode', () => {
  test('a new test file, then one in a new folder, each trigger a rescan reported as events', async (t) => {
    const root = makeTree(t, PROJECT);
    const server = await serve(t, { watch: true });
    const { body: project } = await call(`${server.url}/api/projects`, 'POST', { name: 'w', path: root });
    await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
    await new Promise((r) => setTimeout(r, 2500)); // The watcher picks the project up on its next sync.

    const started = nextEvent(server.events, 'scan.started', (e) => e.data.id === project.id);
    const finished = nextEvent(server.events, 'scan.finished', (e) => e.data.id === project.id);
    writeFileSync(join(root, 'src/b.test.js'), "test('b', () => {});\n");
    assert.equal((await started).data.reason, 'watch');
    assert.equal((await finished).data.testsFound, 2);
    assert.ok((await tests(server.url, project.id)).includes('src/b.test.js'));

    const first = nextEvent(server.events, 'scan.finished', (e) => e.data.id === project.id);
    mkdirSync(join(root, 'src/deep'));
    writeFileSync(join(root, 'src/deep/c.test.js'), "test('c', () => {});\n");
    await first;
    const second = nextEvent(server.events, 'scan.finished', (e) => e.data.id === project.id && e.data.testsFound === 4);
    writeFileSync(join(root, 'src/deep/d.test.js'), "test('d', () => {});\n"); // Seen only if src/deep is watched.
    await second;
    assert.ok((await tests(server.url, project.id)).includes('src/deep/d.test.js'));
  });

  test('the `watch` setting turns watch mode on while the server runs', async (t) => {
    const root = makeTree(t, PROJECT);
    const server = await serve(t);
    const { body: project } = await call(`${server.url}/api/projects`, 'POST', { name: 'w', path: root });
    await call(`${server.url}/api/settings/watch`, 'PUT', { value: 'on' });
    await new Promise((r) => setTimeout(r, 2500));
    const finished = nextEvent(server.events, 'scan.finished', (e) => e.data.id === project.id);
    writeFileSync(join(root, 'src/b.test.js'), "test('b', () => {});\n");
    assert.equal((await finished).data.reason, 'watch');
  });

  test('over the watcher budget a project is polled, and polling still finds changes', async (t) => {
    const root = makeTree(t, { ...PROJECT, 'x/y/z/e.js': '' });
    const store = openStore(':memory:');
    const events = createEvents();
    const scanner = createScanner(store, {}, {}, { events });
    t.after(async () => { await scanner.close(); store.close(); });
    const project = store.insertProject({ name: 'p', path: root })!;
    const watching = startWatching({ store, scanner, events, maxWatchers: 2, pollMs: 200, recursive: false });
    t.after(() => watching.close());
    await watching.ready();
    assert.deepEqual(watching.status(), { watched: 0, polled: 1, watchers: 0 });
    const found = nextEvent(events, 'scan.finished', (e) => e.data.id === project.id && e.data.testsFound === 2);
    writeFileSync(join(root, 'x/y/z/e.test.js'), "test('e', () => {});\n");
    await found;
    assert.ok(store.listTests(project.id).some((x) => x.file_path === 'x/y/z/e.test.js'));
  });

  test('changes under node_modules are ignored; a removed project stops being watched', async (t) => {
    const root = makeTree(t, { ...PROJECT, 'node_modules/dep/index.js': '' });
    const store = openStore(':memory:');
    const events = createEvents();
    const scanner = createScanner(store, {}, {}, { events });
    t.after(async () => { await scanner.close(); store.close(); });
    const project = store.insertProject({ name: 'p', path: root })!;
    const watching = startWatching({ store, scanner, events, debounceMs: 20, recursive: false });
    t.after(() => watching.close());
    await watching.ready();
    assert.deepEqual(watching.status(), { watched: 1, polled: 0, watchers: 2 }); // root and src, not node_modules
    const seen: ProjdexEvent[] = [];
    events.subscribe((e) => seen.push(e));
    writeFileSync(join(root, 'node_modules/dep/a.test.js'), '');
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(seen, []);
    store.deleteProject(project.id);
    events.emit('project.deleted', { id: project.id });
    assert.deepEqual(watching.status(), { watched: 0, polled: 0, watchers: 0 });
  });
});
