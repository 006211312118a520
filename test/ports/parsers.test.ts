import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { entryPorts } from '../../src/ports/compose.ts';
import { parseDockerfile } from '../../src/ports/dockerfile.ts';
import { isDotenv, parseDotenv, valuePort } from '../../src/ports/dotenv.ts';
import { angularPorts } from '../../src/ports/framework-configs.ts';
import { configPorts } from '../../src/ports/js-config.ts';
import { propertiesValues, springPort, yamlValues } from '../../src/ports/jvm.ts';
import { parseMakefile } from '../../src/ports/makefile.ts';
import { parseProcfile } from '../../src/ports/procfile.ts';
import { pumaPorts } from '../../src/ports/ruby.ts';

suite('compose entryPorts()', () => {
  const cases: Array<[unknown, number[]]> = [
    ['8080:80', [8080]], ['3000', [3000]], [3000, [3000]], ['127.0.0.1:8080:80', [8080]],
    ['127.0.0.1::5000', [5000]], ['6060:6060/udp', [6060]], ['[::1]:6001:6001', [6001]],
    ['9000-9002:9000-9002', [9000, 9001, 9002]], ['3000-3001', [3000, 3001]], ['${WEB:-8088}:80', [8088]],
    ['$WEB:80', []], ['70000:80', []], ['a:b:c:d', []], [{ target: 80, published: '8081' }, [8081]],
    [{ target: 9229 }, [9229]], [{ target: 80, published: '8000-8001' }, [8000, 8001]], [null, []],
  ];
  for (const [entry, expected] of cases) test(JSON.stringify(entry), () => assert.deepEqual(entryPorts(entry), expected));
});

suite('dotenv', () => {
  test('file names', () => {
    assert.deepEqual(['.env', '.env.local', '.env.development', '.env.production.local', '.env.ts', '.env.json', 'env', '.envrc'].map(isDotenv), [true, true, true, true, false, false, false, false]);
  });
  test('entries: export, quotes, comments', () => {
    assert.deepEqual(parseDotenv('# c\nexport PORT=3000\nA="x # y"\nB=1 # two\n  C = \'z\'\nnot a line\n'), [['PORT', '3000'], ['A', 'x # y'], ['B', '1'], ['C', 'z']]);
  });
  test('PORT, *_PORT, URLs and defaults', () => {
    assert.equal(valuePort('PORT', '3000'), 3000);
    assert.equal(valuePort('VITE_DEV_PORT', '${X:-5199}'), 5199);
    assert.equal(valuePort('DATABASE_URL', 'postgres://u:p@localhost:5432/db'), 5432);
    assert.equal(valuePort('REDIS_URL', 'redis://[::1]:6380'), 6380);
    assert.equal(valuePort('API_URL', 'https://api.example.com/v1'), undefined);
    assert.equal(valuePort('SECRET', 'abc:123'), undefined);
    assert.equal(valuePort('PORT', '$PORT'), undefined);
    assert.equal(valuePort('PORT', '0'), undefined);
  });
});

suite('Dockerfile', () => {
  test('EXPOSE with protocols, ranges and ARG/ENV variables; CMD in exec form', () => {
    const text = 'FROM x\nARG PORT=4000\nENV ADMIN 4001\nEXPOSE 80 443/tcp \\\n  53/udp\nEXPOSE ${PORT} $ADMIN ${NONE:-4002} 7000-7001\nCMD ["uvicorn", "a:b", "--port", "8000"]\n';
    assert.deepEqual(parseDockerfile(text), { exposed: [80, 443, 53, 4000, 4001, 4002, 7000, 7001], commands: ["'uvicorn' 'a:b' '--port' '8000'"] });
  });
});

suite('Procfile and Makefile', () => {
  test('Procfile process lines', () => {
    assert.deepEqual(parseProcfile('# x\nweb: rails s -p 3000\nworker:sidekiq\n\nbad line\n'), [['web', 'rails s -p 3000'], ['worker', 'sidekiq']]);
  });
  test('Makefile recipes with variables, continuations and inline recipes', () => {
    const text = 'PORT ?= 8000\nHOST := 0.0.0.0\n.PHONY: run\nrun: deps\n\t@python manage.py runserver \\\n\t  $(HOST):$(PORT)\n\n# comment\nup: ; docker compose up\nsh:\n\techo $$PORT\n';
    assert.deepEqual(parseMakefile(text), [['run', 'python manage.py runserver 0.0.0.0:8000'], ['up', 'docker compose up'], ['sh', 'echo $PORT']]);
  });
});

suite('framework configs', () => {
  test('server/preview/devServer port literals, fallbacks and constants; nested and commented ones ignored', () => {
    const text = "const P = 5180;\n// server: { port: 1 }\nexport default defineConfig(() => ({\n  server: { proxy: { '/a': { target: 'http://x:9', port: 9 } }, port: Number(process.env.PORT) || 5174, hmr: { port: 24678 } },\n  preview: { port: P },\n  devServer: { port: parseInt(process.env.PORT ?? '8081', 10) },\n}));\n";
    assert.deepEqual(configPorts(text, ['server', 'preview', 'devServer']).map((p) => [p.key, p.port]), [['server', 5174], ['preview', 5180], ['devServer', 8081]]);
    assert.deepEqual(configPorts('x = { server: { port: getPort() } }', ['server']).map((p) => p.port), [undefined]);
  });
  test('angular.json serve options and configurations', () => {
    assert.deepEqual(angularPorts({ projects: { a: { architect: { serve: { options: { port: 4300 }, configurations: { e2e: { port: 4301 } } } } }, b: { targets: { serve: { options: { port: '4302' } } } }, c: 1 } }), [4300, 4301, 4302]);
    assert.deepEqual(angularPorts(undefined), []);
  });
});

suite('JVM and Ruby', () => {
  test('Spring properties and YAML, placeholders with defaults', () => {
    assert.deepEqual(propertiesValues('server.port=${PORT:8081}\nserver.port: 8082\nquarkus.http.port 8083\nother=1\n').map(([, v]) => v), ['${PORT:8081}', '8082', '8083']);
    assert.deepEqual(yamlValues('server:\n  port: 9090\n---\nmanagement.server.port: 9091\n'), [['server.port', 9090], ['management.server.port', 9091]]);
    assert.deepEqual(['${PORT:8081}', '${PORT}', 8080, 'x'].map(springPort), [8081, undefined, 8080, undefined]);
  });
  test('puma.rb port and bind forms', () => {
    const text = '# port 1\nport ENV.fetch("PORT") { 3000 }\nport ENV.fetch("PORT", 3001)\nport ENV["PORT"] || 3002\nport 3003\nport ENV["PORT"]\nbind "tcp://0.0.0.0:9292"\nbind "unix:///tmp/puma.sock"\n';
    assert.deepEqual(pumaPorts(text), [3000, 3001, 3002, 3003, 9292]);
  });
});
