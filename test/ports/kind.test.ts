import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { envKind, envKinds } from '../../src/ports/kind.ts';
import { portsInCommand } from '../../src/ports/command.ts';
import { scan } from '../../src/scan/index.ts';
import { makeTree } from '../helpers/index.ts';

const rows = async (root: string): Promise<Array<[number, string | null, string, string]>> =>
  (await scan(root)).ports.map((p) => [p.port, p.script_name, p.config_source, (p as { kind?: string }).kind ?? '']);

suite('envKind()', () => {
  const cases: Array<[string, string]> = [
    ['PORT', 'listen'], ['APP_PORT', 'listen'], ['SERVER_PORT', 'listen'], ['DJANGO_PORT', 'listen'], ['API_PORT', 'listen'],
    ['VITE_PORT', 'listen'], ['VITE_DEV_PORT', 'listen'], ['FLASK_RUN_PORT', 'listen'], ['LISTEN_ADDR', 'listen'],
    ['APP_URL', 'listen'], ['NEXTAUTH_URL', 'listen'], ['NEXT_PUBLIC_APP_URL', 'listen'], ['ORIGIN', 'listen'],
    ['DB_PORT', 'connect'], ['FORWARD_DB_PORT', 'connect'], ['REDIS_PORT', 'connect'], ['MAIL_PORT', 'connect'],
    ['SMTP_PORT', 'connect'], ['POSTGRES_PORT', 'connect'], ['RABBITMQ_PORT', 'connect'], ['ELASTICSEARCH_PORT', 'connect'],
    ['DATABASE_URL', 'connect'], ['MONGODB_URI', 'connect'], ['SENTRY_DSN', 'connect'], ['REDIS_HOST', 'connect'],
    ['NEXT_PUBLIC_API_URL', 'connect'], ['VITE_API_PORT', 'connect'], ['REACT_APP_BACKEND_URL', 'connect'], ['API_URL', 'connect'],
    ['TYPEORM_PORT', 'connect'], ['SERVER_URL', 'connect'], ['CORS_ORIGIN', 'connect'], ['FRONTEND_URL', 'connect'],
    ['SERVER_ADDR', 'listen'], ['FRONTEND_PORT', 'listen'], ['BACKEND_PORT', 'listen'], ['ML_PORT', 'listen'],
  ];
  for (const [name, kind] of cases) test(`${name} -> ${kind}`, () => assert.equal(envKind(name), kind));
});

suite('envKinds(): the sibling host rule', () => {
  test('a *_PORT whose *_HOST names another machine is a client setting', () => {
    assert.deepEqual(envKinds([
      ['TRAC_HOST', 'db'], ['TRAC_PORT', '5432'], ['APP_HOST', '0.0.0.0'], ['APP_PORT', '80'],
      ['API_HOSTNAME', '"api.example.com"'], ['API_PORT', '443'], ['WEB_HOST', '${HOST}'], ['WEB_PORT', '8080'], ['PORT', '3000'],
    ]), ['connect', 'connect', 'listen', 'listen', 'connect', 'connect', 'connect', 'listen', 'listen']);
  });

  test('in a compose service: SQL_PORT beside SQL_HOST=db connects; the published port listens', async (t) => {
    const root = makeTree(t, { 'docker-compose.yml': [
      'services:', '  web:', '    command: python manage.py runserver 0.0.0.0:8000', '    ports:', '      - 8000:8000',
      '    environment:', '      - SQL_HOST=db', '      - SQL_PORT=5432', '      - TRAC_HOST=db', '      - TRAC_PORT=5433', '',
    ].join('\n') });
    assert.deepEqual(await rows(root), [
      [5432, 'web', 'docker-compose.yml', 'connect'],
      [5433, 'web', 'docker-compose.yml', 'connect'],
      [8000, 'web', 'docker-compose.yml', 'listen'],
    ]);
  });
});

suite('listen or connect across sources', () => {
  test('a script line: PORT= and flags listen, a client setting on the line connects', () => {
    const found = portsInCommand('DB_PORT=5432 REDIS_PORT=${R:-6380} PORT=4000 node server.js');
    assert.deepEqual([found.ports, found.connect], [[4000], [5432, 6380]]);
  });

  test('dotenv, compose environment and compose ports; a published host port turns connect into listen', async (t) => {
    const root = makeTree(t, {
      '.env': [
        'APP_URL=http://localhost:8000', 'DB_PORT=3306', 'REDIS_PORT=6379', 'MAIL_PORT=2525',
        'DATABASE_URL=mysql://root@127.0.0.1:3306/app', 'APP_URL_TYPO=not a url', '',
      ].join('\n'),
      'docker-compose.yml': [
        'services:',
        '  app:',
        '    build: .',
        '    ports: ["${APP_PORT:-8080}:80"]',
        '    environment:',
        '      PORT: 80',
        '      MONGODB_URI: mongodb://mongo:27017/app',
        '  mysql:',
        '    image: mysql:8',
        '    ports: ["${FORWARD_DB_PORT:-3306}:3306"]',
        '',
      ].join('\n'),
    });
    assert.deepEqual(await rows(root), [
      // PORT inside the container; the host side is 8080.
      [80, 'app', 'docker-compose.yml', 'container'],
      [2525, null, '.env', 'connect'],
      // The repository's own compose file publishes 3306: its settings naming 3306 are the project's port.
      [3306, null, '.env', 'listen'],
      [3306, 'mysql', 'docker-compose.yml', 'listen'],
      [6379, null, '.env', 'connect'],
      [8000, null, '.env', 'listen'],
      [8080, 'app', 'docker-compose.yml', 'listen'],
      [27017, 'app', 'docker-compose.yml', 'connect'],
    ]);
  });

  test('one row per port, script and source: listen wins over connect', async (t) => {
    const root = makeTree(t, { '.env': 'REDIS_PORT=4000\nPORT=4000\nDB_PORT=4000\n' });
    assert.deepEqual(await rows(root), [[4000, null, '.env', 'listen']]);
  });

  test('a container port alone (`"5432"`) gets a random host port: a container row; a connect setting stays connect', async (t) => {
    const root = makeTree(t, {
      '.env': 'DATABASE_URL="postgresql://app:pw@127.0.0.1:5432/app?serverVersion=16"\n',
      'compose.override.yaml': 'services:\n  database:\n    ports:\n      - "5432"\n  mailer:\n    ports: ["1025", "8025"]\n',
      'compose.yaml': 'services:\n  database:\n    image: postgres:16\n',
    });
    assert.deepEqual(await rows(root), [
      [1025, 'mailer', 'compose.override.yaml', 'container'],
      [5432, null, '.env', 'connect'],
      [5432, 'database', 'compose.override.yaml', 'container'],
      [8025, 'mailer', 'compose.override.yaml', 'container'],
    ]);
  });

  test('compose ports interpolate the .env beside the file; the settings they publish listen', async (t) => {
    const root = makeTree(t, {
      '.env': 'FRONTEND_PORT=3001\nBACKEND_PORT=5001\nMONGO_PORT=27018\nREDIS_PORT=6380\nEMPTY=\n',
      'docker-compose.yml': [
        'services:', '  frontend:', '    ports: ["${FRONTEND_PORT}:3000"]', '  backend:', '    ports: ["$BACKEND_PORT:5000"]',
        '  mongo:', '    ports: ["${MONGO_PORT:-27017}:27017"]', '  redis:', '    ports: ["${EMPTY:-6379}:6379", "${UNSET}:1"]', '',
      ].join('\n'),
    });
    assert.deepEqual(await rows(root), [
      [3001, null, '.env', 'listen'],
      [3001, 'frontend', 'docker-compose.yml', 'listen'],
      [5001, null, '.env', 'listen'],
      [5001, 'backend', 'docker-compose.yml', 'listen'],
      [6379, 'redis', 'docker-compose.yml', 'listen'],
      [6380, null, '.env', 'connect'],
      [27018, null, '.env', 'listen'],
      [27018, 'mongo', 'docker-compose.yml', 'listen'],
    ]);
  });

  test('dev-server proxy targets are ports the project connects to', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { dev: 'vite' } }),
      'vite.config.ts': "export default defineConfig({\n  server: {\n    port: 3000,\n    proxy: {\n" +
        "      '/api': { target: 'http://localhost:8000', changeOrigin: true },\n      '/socket': { target: 'ws://127.0.0.1:8001', ws: true },\n" +
        "      '/legacy': 'http://localhost:9000/old',\n      '/env': { target: process.env.API_TARGET },\n    },\n  },\n})\n",
      'admin/vue.config.js': "module.exports = { devServer: { proxy: { '/api': { target: 'http://localhost:8000' } } } }\n",
    });
    assert.deepEqual(await rows(root), [
      [3000, null, 'vite.config.ts', 'listen'],
      [8000, null, 'admin/vue.config.js', 'connect'],
      [8000, null, 'vite.config.ts', 'connect'],
      [8001, null, 'vite.config.ts', 'connect'],
      [9000, null, 'vite.config.ts', 'connect'],
    ]);
  });
});

