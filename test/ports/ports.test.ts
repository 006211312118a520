import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { scan } from '../../src/scan/index.ts';
import { fixture, makeTree } from '../helpers/index.ts';

type Row = [port: number, script: string | null, source: string, kind: string];

async function ports(root: string): Promise<Row[]> {
  return (await scan(root)).ports.map((p) => [p.port, p.script_name, p.config_source, (p as { kind?: string }).kind ?? '']);
}

suite('findPorts() on fixture projects', () => {
  test('Next app: script flags, the next default for a bare `next dev`, URLs in .env.local', async () => {
    assert.deepEqual(await ports(fixture('ports-next')), [
      [3000, 'dev', 'default:next', 'listen'],
      [4000, 'start', 'package.json', 'listen'],
      [5432, null, '.env.local', 'connect'],
      [8080, null, '.env.local', 'connect'],
    ]);
  });

  test('Vite app: server.port replaces the dev default, preview keeps its own, Storybook -p, proxy connects', async () => {
    assert.deepEqual(await ports(fixture('ports-vite')), [
      [4173, 'preview', 'default:vite', 'listen'],
      [5174, null, 'vite.config.ts', 'listen'],
      [6007, 'storybook', 'package.json', 'listen'],
      // The proxy target is the backend the dev server forwards to: connected to, not listened on.
      [8080, null, 'vite.config.ts', 'connect'],
    ]);
  });

  test('compose project: short and long syntax, ranges, overrides, commands and Dockerfile EXPOSE', async () => {
    // Host ports are the published ones; EXPOSE, a container port alone and commands run in a container are
    // container rows.
    assert.deepEqual(await ports(fixture('ports-compose')), [
      [80, null, 'Dockerfile', 'container'],
      [443, null, 'Dockerfile', 'container'],
      [1025, 'mail', 'docker-compose.override.yml', 'listen'],
      [4000, null, 'Dockerfile', 'container'],
      [5432, 'db', 'docker-compose.yml', 'listen'],
      [6379, 'cache', 'docker-compose.yml', 'container'],
      [8000, null, 'api/Dockerfile', 'container'],
      [8000, 'api', 'docker-compose.yml', 'container'],
      [8025, 'mail', 'docker-compose.override.yml', 'listen'],
      [8081, 'api', 'docker-compose.yml', 'listen'],
      [8088, 'web', 'docker-compose.yml', 'listen'],
      [8443, 'web', 'docker-compose.yml', 'listen'],
      [9000, 'workers', 'docker-compose.yml', 'listen'],
      [9001, 'workers', 'docker-compose.yml', 'listen'],
      [9002, 'workers', 'docker-compose.yml', 'listen'],
      [9229, 'api', 'docker-compose.yml', 'container'],
    ]);
  });

  test('Django project: Makefile targets (with variables), Procfiles, .env; $PORT is a note', async () => {
    const result = await scan(fixture('ports-django'));
    assert.deepEqual(result.ports.map((p) => [p.port, p.script_name, p.config_source, (p as { kind?: string }).kind]), [
      [8000, 'dev', 'default:django', 'listen'],
      [8000, 'web', 'default:django', 'listen'],
      [8001, 'run', 'Makefile', 'listen'],
      [8002, 'serve', 'Makefile', 'listen'],
      [8003, null, '.env', 'listen'],
    ]);
    assert.ok(result.notes.some((n) => n.includes('$PORT') && n.includes('Procfile')));
  });

  test('Rails app: puma.rb port default replaces the `rails server` default; `puma -C` assumes none', async () => {
    assert.deepEqual(await ports(fixture('ports-rails')), [
      [3000, null, 'config/puma.rb', 'listen'],
      [6379, null, '.env.development', 'connect'],
    ]);
  });

  test('Spring Boot: application.properties placeholders and profile YAML, not test resources', async () => {
    assert.deepEqual(await ports(fixture('ports-spring')), [
      [8081, null, 'src/main/resources/application.properties', 'listen'],
      [9090, null, 'src/main/resources/application-dev.yml', 'listen'],
      [9091, null, 'src/main/resources/application-dev.yml', 'listen'],
    ]);
  });

  test('Angular: angular.json serve port replaces the ng serve default', async () => {
    assert.deepEqual(await ports(fixture('ports-angular')), [
      [4300, null, 'angular.json', 'listen'],
      [4401, 'start:alt', 'package.json', 'listen'],
    ]);
  });

  test('monorepo: every package, config_source relative to the root, per-package default suppression', async () => {
    assert.deepEqual(await ports(fixture('ports-monorepo')), [
      [3000, 'start', 'default:next', 'listen'],
      [3100, 'dev', 'apps/web/package.json', 'listen'],
      [3200, null, 'apps/legacy/.env', 'listen'],
      [4000, null, 'apps/api/.env', 'listen'],
      [4000, 'api', 'compose.yaml', 'listen'],
      [4000, 'dev', 'apps/api/package.json', 'listen'],
      [4400, null, 'apps/docs/astro.config.mjs', 'listen'],
      [5432, null, 'apps/api/.env', 'connect'],
      [5433, 'db', 'compose.yaml', 'listen'],
      [6006, 'storybook', 'packages/ui/package.json', 'listen'],
      [8000, null, 'services/py/Dockerfile', 'container'],
    ]);
  });
});

suite('findPorts() robustness', () => {
  test('broken files are skipped, out-of-range ports dropped, duplicates collapsed', async (t) => {
    const root = makeTree(t, {
      'package.json': '{ "scripts": { "dev": "vite --port 70000", "a": "serve -l 5000 && serve -l 5000" ',
      'docker-compose.yml': 'services:\n  web:\n    ports: ["8080:80"\n  bad: [\n',
      'web/package.json': '{ "scripts": { "a": "serve -l 5000 && serve -l 5000", "b": "PORT=0 node x" } }',
      '.env': 'PORT=99999\nAPI_PORT=3001\nAPI_PORT=3001\n',
      'Dockerfile': 'EXPOSE abc 65536 22\n',
      'vite.config.ts': 'export default { server: { port: process.env.PORT } }',
      'angular.json': '{ not json',
    });
    const result = await scan(root);
    assert.deepEqual(result.ports.map((p) => [p.port, p.script_name, p.config_source]), [
      [22, null, 'Dockerfile'],
      [3001, null, '.env'],
      [5000, 'a', 'web/package.json'],
      [8080, 'web', 'docker-compose.yml'],
    ]);
    assert.ok(result.notes.some((n) => n.includes('vite.config.ts') && n.includes('computed')));
  });

  test('a dependency alone gives no default; only a script that runs the tool does', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ dependencies: { vite: '5', next: '14' }, scripts: { build: 'vite build', lint: 'next lint' } }),
    });
    assert.deepEqual((await scan(root)).ports, []);
  });
});
