import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { openStore } from '../../src/core/store/store.ts';
import { call, makeTree, serve } from '../helpers/index.ts';

type PortBody = { id: number; port: number; script_name: string | null; config_source: string; kind: string };
const rows = (body: PortBody[]): Array<[number, string | null, string, string]> =>
  body.map((p) => [p.port, p.script_name, p.config_source, p.kind]);

/** Registers and scans `root` as `name`; returns its id. */
async function addScanned(url: string, name: string, root: string): Promise<number> {
  const created = await call(`${url}/api/projects`, 'POST', { name, path: root });
  assert.equal(created.status, 201);
  assert.equal((await call(`${url}/api/projects/${created.body.id}/scan`, 'POST')).status, 200);
  return created.body.id;
}

suite('GET /api/projects/:id/ports?kind=', () => {
  test('listen by default, connect and all on request; the scan answers the listen rows', async (t) => {
    const root = makeTree(t, {
      '.env': 'PORT=4000\nDATABASE_URL=postgres://u:p@localhost:5432/app\nREDIS_PORT=6379\n',
      'package.json': JSON.stringify({ scripts: { dev: 'next dev' } }),
    });
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'web', path: root });
    const scanned = await call(`${url}/api/projects/1/scan`, 'POST');
    const listen = await call(`${url}/api/projects/1/ports`);
    assert.deepEqual(rows(listen.body), [[3000, 'dev', 'default:next', 'listen'], [4000, null, '.env', 'listen']]);
    assert.deepEqual(scanned.body.ports, listen.body);
    assert.deepEqual((await call(`${url}/api/projects/1/ports?kind=listen`)).body, listen.body);
    assert.deepEqual(rows((await call(`${url}/api/projects/1/ports?kind=connect`)).body), [
      [5432, null, '.env', 'connect'], [6379, null, '.env', 'connect'],
    ]);
    assert.deepEqual(rows((await call(`${url}/api/projects/1/ports?kind=all`)).body), [
      [3000, 'dev', 'default:next', 'listen'], [4000, null, '.env', 'listen'],
      [5432, null, '.env', 'connect'], [6379, null, '.env', 'connect'],
    ]);
  });

  test('an unknown kind is 400; an unknown project is 404 before it', async (t) => {
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'a', path: makeTree(t) });
    const bad = await call(`${url}/api/projects/1/ports?kind=sideways`);
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { error: 'Invalid kind: use listen, connect, container or all' });
    assert.equal((await call(`${url}/api/projects/7/ports?kind=sideways`)).status, 404);
  });

  test('port rows keep their id across rescans while found; a new row gets a new id, a gone one goes', async (t) => {
    const root = makeTree(t, { '.env': 'PORT=4000\nAPI_PORT=4001\n' });
    const { url } = await serve(t);
    await addScanned(url, 'a', root);
    const first = (await call(`${url}/api/projects/1/ports`)).body as PortBody[];
    await call(`${url}/api/projects/1/scan`, 'POST');
    assert.deepEqual((await call(`${url}/api/projects/1/ports`)).body.map((p: PortBody) => p.id), first.map((p) => p.id));
    writeFileSync(join(root, '.env'), 'PORT=4000\nWEB_PORT=4002\nAPI_PORT=4001\n');
    await call(`${url}/api/projects/1/scan`, 'POST');
    const after = (await call(`${url}/api/projects/1/ports`)).body as PortBody[];
    assert.deepEqual(after.map((p) => [p.port, p.id]), [[4000, first[0]!.id], [4001, first[1]!.id], [4002, Math.max(...first.map((p) => p.id)) + 1]]);
    writeFileSync(join(root, '.env'), 'PORT=4000\n');
    await call(`${url}/api/projects/1/scan`, 'POST');
    assert.deepEqual((await call(`${url}/api/projects/1/ports`)).body.map((p: PortBody) => [p.port, p.id]), [[4000, first[0]!.id]]);
  });
});

suite('GET /api/ports', () => {
  test('listen ports of every project grouped by port, in contract order, conflicts marked', async (t) => {
    const { url } = await serve(t);
    await addScanned(url, 'web', makeTree(t, {
      'package.json': JSON.stringify({ scripts: { dev: 'next dev', start: 'next start -p 3000', docs: 'vite --port 5180' } }),
      '.env': 'DATABASE_URL=postgres://localhost:5432/db\n',
    }));
    await addScanned(url, 'api', makeTree(t, { '.env': 'PORT=3000\nREDIS_PORT=6379\n', 'Procfile': 'web: uvicorn app:app --port 8000\n' }));
    await addScanned(url, 'empty', makeTree(t));
    await addScanned(url, 'db', makeTree(t, { 'compose.yaml': 'services:\n  db:\n    image: postgres\n    ports: ["5432:5432"]\n' }));
    const all = await call(`${url}/api/ports`);
    assert.equal(all.status, 200);
    assert.deepEqual(all.body, [
      { port: 3000, conflict: true, projects: [
        { project_id: 1, name: 'web', scripts: ['dev', 'start'], sources: ['default:next', 'package.json'] },
        { project_id: 2, name: 'api', scripts: [], sources: ['.env'] },
      ] },
      { port: 5180, conflict: false, projects: [{ project_id: 1, name: 'web', scripts: ['docs'], sources: ['package.json'] }] },
      // web only connects to 5432 (its .env): the db project publishes it, and claims it alone.
      { port: 5432, conflict: false, projects: [{ project_id: 4, name: 'db', scripts: ['db'], sources: ['compose.yaml'] }] },
      { port: 8000, conflict: false, projects: [{ project_id: 2, name: 'api', scripts: ['web'], sources: ['Procfile'] }] },
    ]);
    const conflicts = await call(`${url}/api/ports?conflicts=1`);
    assert.deepEqual(conflicts.body, [all.body[0]]);
    assert.deepEqual((await call(`${url}/api/ports?conflicts=true`)).body, conflicts.body);
    assert.deepEqual((await call(`${url}/api/ports?conflicts=0`)).body, all.body);
  });

  test('two Dockerized projects that both EXPOSE 80: container rows, no collision; published host ports still collide', async (t) => {
    const { url } = await serve(t);
    const docker = 'FROM nginx:alpine\nEXPOSE 80\nCMD ["nginx", "-g", "daemon off;"]\n';
    await addScanned(url, 'site', makeTree(t, { 'Dockerfile': docker, 'compose.yaml': 'services:\n  web:\n    build: .\n    ports: ["80"]\n' }));
    await addScanned(url, 'shop', makeTree(t, {
      'Dockerfile': docker.replace('EXPOSE 80', 'ENV PORT=8080\nEXPOSE 80 8080'),
      'docker-compose.yml': 'services:\n  app:\n    build: .\n    environment: [PORT=8080]\n    command: ["uvicorn", "a:app", "--port", "3000"]\n',
    }));
    assert.deepEqual((await call(`${url}/api/ports`)).body, []);
    assert.deepEqual((await call(`${url}/api/ports?conflicts=1`)).body, []);
    assert.deepEqual(rows((await call(`${url}/api/projects/2/ports?kind=container`)).body), [
      [80, null, 'Dockerfile', 'container'], [3000, 'app', 'docker-compose.yml', 'container'],
      [8080, null, 'Dockerfile', 'container'], [8080, 'app', 'docker-compose.yml', 'container'],
    ]);
    assert.deepEqual((await call(`${url}/api/projects/2/ports`)).body, []);
    // Publishing on the host makes both the published row and the EXPOSE row of that port listen rows.
    await addScanned(url, 'blog', makeTree(t, { 'Dockerfile': docker, 'compose.yaml': 'services:\n  web:\n    build: .\n    ports: ["80:80"]\n' }));
    await addScanned(url, 'wiki', makeTree(t, { 'compose.yaml': 'services:\n  web:\n    image: nginx\n    ports: [{ target: 80, published: 80 }]\n' }));
    assert.deepEqual((await call(`${url}/api/ports?conflicts=1`)).body, [{ port: 80, conflict: true, projects: [
      { project_id: 3, name: 'blog', scripts: ['web'], sources: ['Dockerfile', 'compose.yaml'] },
      { project_id: 4, name: 'wiki', scripts: ['web'], sources: ['compose.yaml'] },
    ] }]);
  });

  test('follows rescans and deletions; a bad conflicts value is 400; no projects is []', async (t) => {
    const { url } = await serve(t);
    assert.deepEqual((await call(`${url}/api/ports`)).body, []);
    const a = makeTree(t, { '.env': 'PORT=3000\n' });
    await addScanned(url, 'a', a);
    await addScanned(url, 'b', makeTree(t, { '.env': 'PORT=3000\n' }));
    assert.equal((await call(`${url}/api/ports?conflicts=1`)).body.length, 1);
    writeFileSync(join(a, '.env'), 'PORT=3001\n');
    await call(`${url}/api/projects/1/scan`, 'POST');
    assert.deepEqual((await call(`${url}/api/ports?conflicts=1`)).body, []);
    assert.deepEqual((await call(`${url}/api/ports`)).body.map((c: { port: number }) => c.port), [3000, 3001]);
    assert.equal((await call(`${url}/api/projects/2`, 'DELETE')).status, 204);
    assert.deepEqual((await call(`${url}/api/ports`)).body.map((c: { port: number }) => c.port), [3001]);
    const bad = await call(`${url}/api/ports?conflicts=maybe`);
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { error: 'Invalid conflicts: use 1 or 0' });
    assert.equal((await call(`${url}/api/ports`, 'POST', {})).status, 405);
  });
});

suite('ports migration', () => {
  test('a database written before kinds existed keeps its port rows, as listen rows', async (t) => {
    const file = join(makeTree(t), 'old.db');
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(file);
    db.exec(`CREATE TABLE projects (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, path TEXT NOT NULL UNIQUE,
      description TEXT, framework TEXT, tags TEXT NOT NULL DEFAULT '[]', last_scanned INTEGER, created_at INTEGER NOT NULL,
      scan_generation INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE tests (id INTEGER PRIMARY KEY AUTOINCREMENT, project_id INTEGER NOT NULL, file_path TEXT NOT NULL,
      framework TEXT, status TEXT, last_run INTEGER, cases INTEGER, created_at INTEGER NOT NULL, scan_generation INTEGER NOT NULL,
      UNIQUE (project_id, file_path));
      CREATE TABLE ports (id INTEGER PRIMARY KEY AUTOINCREMENT, project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      port INTEGER NOT NULL, script_name TEXT, config_source TEXT NOT NULL, last_detected INTEGER NOT NULL, created_at INTEGER NOT NULL);
      CREATE INDEX ports_by_project ON ports (project_id, port, script_name);
      CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO projects (name, path, created_at) VALUES ('a', '/srv/a', 1);
      INSERT INTO ports (project_id, port, script_name, config_source, last_detected, created_at) VALUES (1, 3000, 'dev', 'package.json', 2, 2);
      PRAGMA user_version = 1;`);
    db.close();
    const store = openStore(file);
    t.after(() => store.close());
    assert.deepEqual(store.listPorts(1), [
      { id: 1, project_id: 1, port: 3000, script_name: 'dev', config_source: 'package.json', last_detected: 2, created_at: 2, kind: 'listen' },
    ]);
    assert.deepEqual(store.listPorts(1, 'connect'), []);
    assert.equal(store.integrityCheck(), 'ok');
  });
});
