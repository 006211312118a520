import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { serverPorts } from '../../src/ports/runtime-config.ts';
import { scan } from '../../src/scan/index.ts';
import { makeTree } from '../helpers/index.ts';

suite('ports in runtime config files', () => {
  test('serverPorts: the server section only, dotted keys, local addresses, one level of environments', () => {
    assert.deepEqual(serverPorts({ server: { port: 3000, host: 'localhost' }, database: { port: 5432 } }), [3000]);
    assert.deepEqual(serverPorts({ application: { port: 8000 }, redis: { port: 6379 }, email_client: { base_url: 'localhost' } }), [8000]);
    assert.deepEqual(serverPorts({ 'http.port': 6157, 'ssh.port': 2222, 'db.uri': 'postgres://h:5432/x' }), [6157]);
    assert.deepEqual(serverPorts({ http: { addr: '0.0.0.0:9090', upstream_port: 7000 } }), [9090]);
    assert.deepEqual(serverPorts({ http: { addr: 'api.example.com:443' } }), []);
    assert.deepEqual(serverPorts({ development: { server: { port: 4100 } }, production: { server: { port: 80 } } }), [4100]);
    assert.deepEqual(serverPorts({ server: { port: 'not a port' } }), []);
  });

  test('on a tree: node-config, a Rust configuration/ folder, a --config file, Spring Cloud Config shared files; not production', async (t) => {
    const root = makeTree(t, {
      'api/package.json': JSON.stringify({ dependencies: { config: '^3.3.0' } }),
      'api/config/default.json': JSON.stringify({ server: { port: 3100 }, db: { host: 'localhost', port: 27017 } }),
      'api/config/production.json': JSON.stringify({ server: { port: 80 } }),
      'newsletter/Cargo.toml': '[package]\nname = "newsletter"\n',
      'newsletter/configuration/base.yaml': 'application:\n  port: 8000\ndatabase:\n  host: "127.0.0.1"\n  port: 5432\n',
      'newsletter/configuration/production.yaml': 'application:\n  host: 0.0.0.0\n',
      'gist/config.yml': '# The port the HTTP server binds to\nhttp.port: 6157\nssh.port: 2222\n',
      'config-server/src/main/resources/shared/gateway.yml': 'server:\n  port: 4000\n',
      'charts/app/values.yaml': 'server:\n  port: 8080\n',
    });
    const result = await scan(root);
    assert.deepEqual(result.ports.map((p) => [p.port, p.config_source, (p as { kind?: string }).kind]), [
      [3100, 'api/config/default.json', 'listen'],
      [4000, 'config-server/src/main/resources/shared/gateway.yml', 'listen'],
      [6157, 'gist/config.yml', 'listen'],
      [8000, 'newsletter/configuration/base.yaml', 'listen'],
    ]);
  });
});
