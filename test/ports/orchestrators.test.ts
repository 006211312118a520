import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { scan } from '../../src/scan/index.ts';
import { makeTree } from '../helpers/index.ts';

async function rows(root: string, notes: string[] = []): Promise<Array<[number, string | null, string, string]>> {
  const result = await scan(root);
  notes.push(...result.notes);
  return result.ports.map((p) => [p.port, p.script_name, p.config_source, (p as { kind?: string }).kind ?? '']);
}

suite('dev orchestrators: Tilt, kind, Skaffold', () => {
  test('Tiltfile port_forwards (local side), docker_compose() files, `tilt up` UI; kind hostPort; skaffold localPort', async (t) => {
    const root = makeTree(t, {
      'Tiltfile': [
        "docker_compose(['./deploy/dev.yml'])",
        "k8s_yaml('k8s/api.yaml')",
        "k8s_resource('api', port_forwards=['8001:80', 9229], labels=['backend'])",
        "k8s_resource(",
        "    'postgres',",
        "    port_forwards='5434:5432',",
        ")",
        "kubectl_resource('grafana', port_forwards=[port_forward(3001, 3000)])",
        "# k8s_resource('old', port_forwards=7777)",
        "k8s_resource('web', port_forwards=['{}:{}'.format(web_port, 80)])",
        '',
      ].join('\n'),
      'deploy/dev.yml': 'services:\n  redis:\n    image: redis\n    ports: ["6380:6379"]\n',
      'Makefile': 'dev:\n\ttilt up\n',
      'hack/kind-config.yaml': [
        'kind: Cluster', 'apiVersion: kind.x-k8s.io/v1alpha4', 'nodes:', '  - role: control-plane', '    extraPortMappings:',
        '      - containerPort: 80', '        hostPort: 8081', '        protocol: TCP', '      - containerPort: 443', '        hostPort: 8443', '',
      ].join('\n'),
      'skaffold.yaml': [
        'apiVersion: skaffold/v4beta6', 'kind: Config', 'portForward:', '  - resourceType: service', '    resourceName: frontend',
        '    port: 80', '    localPort: 4503', 'profiles:', '  - name: debug', '    portForward:', '      - resourceType: deployment',
        '        resourceName: api', '        port: 5005', '---', 'apiVersion: skaffold/v4beta6', 'kind: Config', 'metadata: { name: other }', '',
      ].join('\n'),
    });
    const notes: string[] = [];
    assert.deepEqual(await rows(root, notes), [
      [3001, 'grafana', 'Tiltfile', 'listen'],
      [4503, 'skaffold:frontend', 'skaffold.yaml', 'listen'],
      [5005, 'skaffold:api', 'skaffold.yaml', 'listen'],
      [5434, 'postgres', 'Tiltfile', 'listen'],
      [6380, 'redis', 'deploy/dev.yml', 'listen'],
      [8001, 'api', 'Tiltfile', 'listen'],
      [8081, 'kind', 'hack/kind-config.yaml', 'listen'],
      [8443, 'kind', 'hack/kind-config.yaml', 'listen'],
      [9229, 'api', 'Tiltfile', 'listen'],
      [10350, 'dev', 'default:tilt', 'listen'],
    ]);
    assert.ok(notes.some((n) => n.includes('Tiltfile') && n.includes('.format(')), notes.join('\n'));
  });
});
