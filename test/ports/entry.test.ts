import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { callArgs, jsPorts, pythonPorts } from '../../src/ports/entry.ts';
import { scan } from '../../src/scan/index.ts';
import { fixture, makeTree } from '../helpers/index.ts';

type Row = [port: number, script: string | null, source: string, kind: string];
const rows = async (root: string): Promise<Row[]> =>
  (await scan(root)).ports.map((p) => [p.port, p.script_name, p.config_source, (p as { kind?: string }).kind ?? '']);

suite('jsPorts()', () => {
  const cases: Array<[string, number[]]> = [
    ['app.listen(5000)', [5000]],
    ['app.listen(process.env.PORT || 5000, () => {})', [5000]],
    ['server.listen(Number(process.env.PORT) || 3001)', [3001]],
    ['const PORT = process.env.PORT ?? 4000;\napp.listen(PORT, () => console.log(PORT))', [4000]],
    ['const port = parseInt(process.env.PORT || "8080", 10);\nhttpServer.listen(port)', [8080]],
    ['app.set("port", process.env.PORT || 3002);\napp.listen(app.get("port"))', [3002]],
    ['await app.listen(process.env.PORT ?? 3000);', [3000]],
    ['serve({ fetch: app.fetch, port: 8787 })', [8787]],
    ['const port = 3003\nBun.serve({ port, fetch(req) { return new Response("hi") } })', [3003]],
    ['// app.listen(9999)\n/* server.listen(9998) */\napp.listen(7000)', [7000]],
    ['const url = "http://x"; app.listen(7001)', [7001]],
    ['server.listen("/tmp/app.sock")', []],
    ['emitter.listen(() => {})', []],
    ['server.listen(0)', []],
  ];
  for (const [source, expected] of cases) test(source.split('\n').pop()!, () => assert.deepEqual(jsPorts(source).ports, expected));

  test('an unreadable listen is reported, not guessed', () => {
    assert.deepEqual(jsPorts('app.listen(config.port)'), { ports: [], unread: 'config.port' });
  });

  test('callArgs splits at top-level commas only, and gives up on an unclosed call', () => {
    const text = 'f(a(1, 2), "x,)", [3, 4]) tail';
    assert.deepEqual(callArgs(text, 2), ['a(1, 2)', '"x,)"', '[3, 4]']);
    assert.deepEqual(callArgs(`f(${'x'.repeat(1000)}`, 2), []);
  });
});

suite('pythonPorts()', () => {
  const flask = 'from flask import Flask\napp = Flask(__name__)\n';
  const cases: Array<[string, number[]]> = [
    [`${flask}app.run()`, [5000]],
    [`${flask}app.run(debug=True, port=5001)`, [5001]],
    [`${flask}app.run(host="0.0.0.0", port=int(os.environ.get("PORT", 5002)))`, [5002]],
    [`${flask}port = int(os.getenv("PORT", "5003"))\napp.run(port=port)`, [5003]],
    [`${flask}subprocess.run(["ls"])\nasyncio.run(main())`, []],
    ['import uvicorn\nuvicorn.run("main:app", port=8001)', [8001]],
    ['import uvicorn\nuvicorn.run(app)', [8000]],
    ['from aiohttp import web\nweb.run_app(app)', [8080]],
    ['socketio.run(app, port=5004)', [5004]],
    ['# app.run(port=1)\nprint("no server")', []],
    // A library's docstring shows an app; its own strings name `app.run()`: neither is a server.
    ['class Flask:\n    """Usage::\n\n        app = Flask(__name__)\n        app.run()\n    """\n    def run(self):\n        warn("call \'app.run()\' in a guard")', []],
  ];
  for (const [source, expected] of cases) test(source.split('\n').pop()!, () => assert.deepEqual(pythonPorts(source).ports, expected));
});

suite('entry files on trees', () => {
  test('MERN: start/server scripts read backend/server.js; CRA proxy connects; a file no script runs is not read', async () => {
    assert.deepEqual(await rows(fixture('ports-mern')), [
      [3000, 'start', 'default:react-scripts', 'listen'],
      [5000, null, '.env', 'listen'],
      [5000, null, 'frontend/package.json', 'connect'],
      [5000, 'dev', 'backend/server.js', 'listen'],
      [5000, 'server', 'backend/server.js', 'listen'],
      [5000, 'start', 'backend/server.js', 'listen'],
      [27017, null, '.env', 'connect'],
    ]);
  });

  test('Flask/FastAPI: python app.py and api/main.py from the Makefile, .flaskenv, gunicorn default; broker and DB connect', async () => {
    assert.deepEqual(await rows(fixture('ports-flask')), [
      [5001, 'run', 'app.py', 'listen'],
      [5002, null, '.flaskenv', 'listen'],
      [5432, null, '.env', 'connect'],
      [6379, null, '.env', 'connect'],
      [8000, 'web', 'default:gunicorn', 'listen'],
      [8001, 'api', 'api/main.py', 'listen'],
    ]);
  });

  test('main is read when no script runs it, `node .` runs main, an unreadable port is a note', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ main: 'src/index.js' }),
      'src/index.js': 'require("http").createServer().listen(process.env.PORT || 7100)',
      'svc/package.json': JSON.stringify({ main: 'app.js', scripts: { start: 'node .', dev: 'node -r dotenv/config app.js' } }),
      'svc/app.js': 'app.listen(7200)',
      'odd/package.json': JSON.stringify({ scripts: { start: 'tsx watch src/main.ts' } }),
      'odd/src/main.ts': 'app.listen(settings.port)',
    });
    const result = await scan(root);
    assert.deepEqual(result.ports.map((p) => [p.port, p.script_name, p.config_source]), [
      [7100, null, 'src/index.js'],
      [7200, 'dev', 'svc/app.js'],
      [7200, 'start', 'svc/app.js'],
    ]);
    assert.ok(result.notes.some((n) => n.includes('odd/src/main.ts') && n.includes('settings.port')), JSON.stringify(result.notes));
  });

  test('nx serve reads the Nx project\'s build main; bare puma with a config/puma.rb takes its port', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { start: 'nx serve', api: 'nx serve api --configuration=development' } }),
      'project.json': JSON.stringify({ name: 'app', targets: { build: { executor: '@nx/esbuild:esbuild', options: { main: 'src/main.ts' } }, serve: { executor: '@nx/js:node' } } }),
      'apps/web/project.json': JSON.stringify({ targets: { serve: { executor: '@nx/angular:dev-server', options: { port: 4201 }, configurations: { production: { port: 4202 } } } } }),
      'src/main.ts': 'const PORT = process.env.PORT || 3000;\napp.listen(PORT, () => {});\n',
      'apps/api/project.json': JSON.stringify({ targets: { build: { options: { main: 'apps/api/src/main.ts' } } } }),
      'apps/api/src/main.ts': 'await app.listen(3333);',
      'rb/Procfile': 'custom_web: bundle exec puma\n',
      'rb/config/puma.rb': 'port ENV.fetch("PORT") { 3000 }\n',
    });
    assert.deepEqual((await scan(root)).ports.map((p) => [p.port, p.script_name, p.config_source]), [
      [3000, null, 'rb/config/puma.rb'],
      [3000, 'start', 'src/main.ts'],
      [3333, 'api', 'apps/api/src/main.ts'],
      [4201, null, 'apps/web/project.json'],
      [4202, null, 'apps/web/project.json'],
    ]);
  });

  test('shell scripts a line runs are read line by line; from a Dockerfile without tool defaults', async (t) => {
    const root = makeTree(t, {
      'Dockerfile': 'FROM python:slim\nCOPY boot.sh ./\nEXPOSE 5000\nENTRYPOINT ["./boot.sh"]\n',
      'boot.sh': '#!/bin/bash\n# gunicorn -b :9999\nflask db upgrade\nexec gunicorn -b :5000 --access-logfile - \\\n  app:app\n',
      'web/Dockerfile': 'FROM python\nCMD ["sh", "start.sh"]\n',
      'web/start.sh': 'exec gunicorn app:app\n',
      'php/package.json': JSON.stringify({ scripts: { start: 'sh scripts/start.sh', dev: 'bash scripts/dev.sh' } }),
      'php/scripts/start.sh': 'php artisan migrate --force\nexec php artisan serve --host=0.0.0.0 --port="${PORT:-10000}"\n',
      'php/scripts/dev.sh': 'DB_PORT=3307 php artisan serve\n',
    });
    assert.deepEqual(await rows(root), [
      [3307, 'dev', 'php/scripts/dev.sh', 'connect'],
      // Run by the Dockerfile: inside the container, not on the host.
      [5000, null, 'Dockerfile', 'container'],
      [5000, null, 'boot.sh', 'container'],
      [8000, 'dev', 'default:laravel', 'listen'],
      [10000, 'start', 'php/scripts/start.sh', 'listen'],
    ]);
  });

  test('express-generator: `node ./bin/www` reads the extensionless bin/www', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ name: 'app', scripts: { start: 'node ./bin/www' } }),
      'bin/www': "#!/usr/bin/env node\nvar app = require('../app');\nvar http = require('http');\n" +
        "var port = normalizePort(process.env.PORT || '3000');\napp.set('port', port);\nvar server = http.createServer(app);\n" +
        "server.listen(port);\nserver.on('error', onError);\n",
      'app.js': 'module.exports = require("express")();\n',
    });
    assert.deepEqual(await rows(root), [[3000, 'start', 'bin/www', 'listen']]);
  });
});

