import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { scan } from '../../src/scan/index.ts';
import { makeTree } from '../helpers/index.ts';

type Row = [port: number, script: string | null, source: string, kind: string];

async function rows(root: string): Promise<{ rows: Row[]; notes: string[] }> {
  const result = await scan(root);
  return { rows: result.ports.map((p) => [p.port, p.script_name, p.config_source, (p as { kind?: string }).kind ?? '']), notes: result.notes };
}

suite('compose files whatever their name, and extends', () => {
  test('compose-dev.yaml, JHipster src/main/docker/*.yml with extends, deploy/compose, long syntax with a default', async (t) => {
    const root = makeTree(t, {
      'compose-dev.yaml': 'services:\n  web:\n    build: .\n    ports:\n      - "${PORT:-3000}:3000"\n',
      'src/main/docker/app.yml': [
        'name: shop', 'services:', '  app:', '    image: shop', '    ports:', '      - 127.0.0.1:8080:8080',
        '  postgresql:', '    extends:', '      file: ./postgresql.yml', '      service: postgresql', '',
      ].join('\n'),
      'src/main/docker/postgresql.yml': 'services:\n  postgresql:\n    image: postgres:17\n    ports:\n      - 127.0.0.1:5432:5432\n',
      'deploy/compose/db.yaml': [
        'services:', '  cache:', '    image: redis', '    ports:', '      - target: 6379', '        published: "${REDIS_HOST_PORT:-6380}"',
        '        host_ip: 127.0.0.1', '',
      ].join('\n'),
      'deploy/compose/.env': 'UNRELATED=1\n',
      // A base that is no compose file by name or folder, pulled in with extends: its ports are the service's.
      'services/api/compose.yaml': [
        'services:', '  api:', '    extends:', '      file: ../../common/base.yml', '      service: node-app',
        '    environment:', '      PORT: 4000', '    ports: ["4000:4000"]', '',
      ].join('\n'),
      'common/base.yml': 'services:\n  node-app:\n    image: node:22\n    ports: ["9229:9229"]\n    environment:\n      PORT: 3999\n',
      // Not compose files: a CI file's services list, a Kubernetes manifest in a docker folder.
      '.gitlab-ci.yml': 'services:\n  - postgres:16\ntest:\n  script: npm test\n',
      'docker/k8s/deploy.yaml': 'kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - ports:\n            - containerPort: 8081\n',
    });
    const found = await rows(root);
    assert.deepEqual(found.rows, [
      [3000, 'web', 'compose-dev.yaml', 'listen'],
      // The extending service's own PORT wins over the base's; the base's published port comes along.
      [4000, 'api', 'services/api/compose.yaml', 'listen'],
      [5432, 'postgresql', 'src/main/docker/app.yml', 'listen'],
      [5432, 'postgresql', 'src/main/docker/postgresql.yml', 'listen'],
      [6380, 'cache', 'deploy/compose/db.yaml', 'listen'],
      [8080, 'app', 'src/main/docker/app.yml', 'listen'],
      [9229, 'api', 'services/api/compose.yaml', 'listen'],
    ]);
  });

  test('extends out of the project, to a missing service, or in a cycle: notes, no stall', async (t) => {
    const root = makeTree(t, {
      'docker-compose.yml': [
        'services:',
        '  out:', '    extends: { file: ../../../etc/compose.yml, service: x }', '    image: a',
        '  gone:', '    extends: { file: base.yml, service: nope }', '    image: a',
        '  a:', '    extends: b', '    ports: ["7001:7001"]',
        '  b:', '    extends: a', '    ports: ["7002:7002"]', '',
      ].join('\n'),
      'base.yml': 'services:\n  other:\n    image: x\n',
    });
    const found = await rows(root);
    // a extends b extends a: each gets both ports once, and the cycle ends.
    assert.deepEqual(found.rows, [
      [7001, 'a', 'docker-compose.yml', 'listen'], [7001, 'b', 'docker-compose.yml', 'listen'],
      [7002, 'a', 'docker-compose.yml', 'listen'], [7002, 'b', 'docker-compose.yml', 'listen'],
    ]);
    assert.ok(found.notes.some((n) => n.includes('../../../etc/compose.yml')), found.notes.join('\n'));
    assert.ok(found.notes.some((n) => n.includes('"nope"') && n.includes('base.yml')), found.notes.join('\n'));
  });
});

suite('compose: host network and ASP.NET Core listen URLs', () => {
  test('network_mode: host makes environment and command ports listen rows; ASPNETCORE_URLS is the service\'s own', async (t) => {
    const root = makeTree(t, {
      'compose.yaml': [
        'services:',
        '  agent:', '    image: agent', '    network_mode: host', '    environment: [PORT=9100]', '    command: serve --port 9101',
        '  web:', '    build: .', '    ports: ["5106:8080"]', '    environment:', '      - ASPNETCORE_URLS=http://+:8080', '',
      ].join('\n'),
      '.env': 'ASPNETCORE_URLS=http://localhost:5000\n',
    });
    const found = await rows(root);
    assert.deepEqual(found.rows, [
      [5000, null, '.env', 'listen'],
      [5106, 'web', 'compose.yaml', 'listen'],
      [8080, 'web', 'compose.yaml', 'container'],
      [9100, 'agent', 'compose.yaml', 'listen'],
      [9101, 'agent', 'compose.yaml', 'listen'],
    ]);
  });
  test('production compose files: their ports are container rows with a note, and publish nothing for a dev file', async (t) => {
    // The shape of a template's compose.deploy.yml (a proxy on 80/443) beside the dev compose.yml, and an
    // override file that only replaces the command.
    const root = makeTree(t, {
      'compose.yml': 'services:\n  api:\n    build: .\n    ports: ["8000:8000"]\n  proxy:\n    image: nginx\n    expose: ["80"]\n    ports: ["80"]\n',
      'compose.deploy.yml': 'services:\n  proxy:\n    image: traefik\n    ports:\n      - "80:80"\n      - "443:443"\n',
      'docker-compose.prod.yml': 'services:\n  api:\n    command: gunicorn -b 0.0.0.0:8000 app:app\n    environment:\n      - DATABASE_URL=postgres://db:5432/app\n',
      'ops/production/docker-compose.yml': 'services:\n  web:\n    image: app\n    ports: ["8080:80"]\n',
    });
    const { rows: found, notes } = await rows(root);
    assert.deepEqual(found, [
      [80, 'proxy', 'compose.deploy.yml', 'container'],
      [80, 'proxy', 'compose.yml', 'container'],
      [443, 'proxy', 'compose.deploy.yml', 'container'],
      [5432, 'api', 'docker-compose.prod.yml', 'connect'],
      [8000, 'api', 'compose.yml', 'listen'],
      // The override's own command port is a container port, but compose.yml publishes 8000 for the same repository.
      [8000, 'api', 'docker-compose.prod.yml', 'listen'],
      [8080, 'web', 'ops/production/docker-compose.yml', 'container'],
    ]);
    assert.ok(notes.some((n) => n.startsWith('compose.deploy.yml is a production compose file')), notes.join('\n'));
    assert.ok(notes.some((n) => n.startsWith('docker-compose.prod.yml is a production compose file')), notes.join('\n'));
  });
});
