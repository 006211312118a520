import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { exsPorts } from '../../src/ports/elixir.ts';
import { scan } from '../../src/scan/index.ts';
import { makeTree } from '../helpers/index.ts';

async function rows(root: string): Promise<Array<[number, string | null, string, string]>> {
  return (await scan(root)).ports.map((p) => [p.port, p.script_name, p.config_source, (p as { kind?: string }).kind ?? '']);
}

suite('framework and tool defaults outside JS; configs that override a default', () => {
  test('Phoenix: dev.exs http port replaces mix phx.server\'s 4000; runtime.exs fallbacks outside the prod block', async (t) => {
    const root = makeTree(t, {
      'mix.exs': 'defmodule App.MixProject do\nend\n',
      'Procfile': 'web: mix phx.server\n',
      'config/dev.exs': 'import Config\nconfig :app, AppWeb.Endpoint,\n  # http: [port: 4999],\n  http: [ip: {127, 0, 0, 1}, port: 4001],\n  url: [host: "localhost", port: 443]\n',
      'config/runtime.exs': [
        'import Config',
        'config :app, :metrics_port, String.to_integer(System.get_env("METRICS_PORT") || "9568")',
        'if config_env() == :prod do',
        '  port = String.to_integer(System.get_env("PORT") || "4000")',
        '  config :app, AppWeb.Endpoint, http: [ip: {0, 0, 0, 0}, port: port]',
        'end',
        '',
      ].join('\n'),
      'config/prod.exs': 'config :app, AppWeb.Endpoint, http: [port: 80]\n',
    });
    assert.deepEqual(await rows(root), [
      [4001, null, 'config/dev.exs', 'listen'],
      [9568, null, 'config/runtime.exs', 'listen'],
    ]);
    assert.deepEqual(exsPorts('get_env = fn name, d -> System.get_env(name) || d end\nhttp: [port: env.("PORT", "4002")]\n'
      + 'config :a, port: System.get_env("PORT", "4003")\nconfig :a, db_port: System.get_env("DB_PORT") || "5432"\n'
      + 'config :a, metrics_port: 9568\nconfig :a, A.Repo, redis_port: 6379\n'), [9568, 4002, 4003]);
    // Opt-ins an environment variable turns on (papercups' `if https do`, changelog's `if System.get_env("HTTPS") do`).
    assert.deepEqual(exsPorts([
      'https = (System.get_env("USE_HTTPS") || "false") == "true"', 'config :a, A.Endpoint, http: [port: 4000]',
      'if https do', '  config :a, A.Endpoint,', '    https: [', '      port: 443,', '      otp_app: :a', '    ]', 'end',
      'if System.get_env("HTTPS") do', '  config :a, A.Endpoint, https: [port: 4001]', 'end',
      'if config_env() == :dev do', '  config :a, A.Endpoint, http: [port: 4100]', 'end', '',
    ].join('\n')), [4000, 4100]);
  });

  test('flask run, mkdocs serve, medusa develop, inngest dev and livereload started without a port', async (t) => {
    const root = makeTree(t, {
      'Procfile': 'web: flask --app app run --debug\ndocs: mkdocs serve\n',
      'package.json': JSON.stringify({ scripts: { dev: 'medusa develop', reload: 'livereload ./public/dist/', inngest: 'npx inngest-cli@latest dev -u http://localhost:9000/hooks' } }),
    });
    assert.deepEqual(await rows(root), [
      [5000, 'web', 'default:flask', 'listen'],
      [8000, 'docs', 'default:mkdocs', 'listen'],
      [8288, 'inngest', 'default:inngest', 'listen'],
      [9000, 'dev', 'default:medusa', 'listen'],
      [35729, 'reload', 'default:livereload', 'listen'],
    ]);
  });

  test('wrangler.jsonc dev.port replaces wrangler dev\'s 8787; BrowserSync in a webpack config, with its proxy', async (t) => {
    const root = makeTree(t, {
      'worker/package.json': JSON.stringify({ scripts: { dev: 'wrangler dev' } }),
      'worker/wrangler.jsonc': '{\n  // local dev\n  "name": "w",\n  "dev": { "port": 8790, },\n}\n',
      'web/package.json': JSON.stringify({ scripts: { start: 'webpack serve --config webpack/webpack.dev.js' } }),
      'web/webpack/webpack.dev.js': [
        "const BrowserSyncPlugin = require('browser-sync-webpack-plugin');",
        'module.exports = {',
        '  devServer: { port: 9060 },',
        '  plugins: [',
        '    new BrowserSyncPlugin(',
        "      { https: false, host: 'localhost', port: 9000, proxy: 'http://localhost:9060/' },",
        '      { reload: false },',
        '    ),',
        '  ],',
        '};',
      ].join('\n'),
      'site/proxy/webpack.config.js': "module.exports = { plugins: [new BrowserSyncPlugin({ proxy: 'http://localhost:8888/' })] };\n",
      'site/webpack.config.js': "const PORT = process.env.PORT || 8080;\nmodule.exports = { plugins: [new BrowserSyncPlugin({ host: 'localhost', port: PORT, server: { baseDir: ['dist'] } })] };\n",
    });
    assert.deepEqual(await rows(root), [
      [3000, null, 'site/proxy/webpack.config.js', 'listen'],
      [8080, null, 'site/webpack.config.js', 'listen'],
      [8790, 'dev', 'worker/wrangler.jsonc', 'listen'],
      [8888, null, 'site/proxy/webpack.config.js', 'connect'],
      [9000, null, 'web/webpack/webpack.dev.js', 'listen'],
      // The proxy's target is the devServer of the same config: one row, listen.
      [9060, null, 'web/webpack/webpack.dev.js', 'listen'],
    ]);
  });
});

suite('task runners: Taskfile.yml and justfile recipes', () => {
  test('commands with vars, included taskfiles as namespace:task, justfile assignments; tool defaults apply', async (t) => {
    const root = makeTree(t, {
      'Taskfile.yml': [
        'version: "3"', 'vars:', '  PORT: 8010', 'includes:', '  api: ./taskfiles/api.yml', 'tasks:',
        '  dev:', '    desc: run it', '    cmds:', '      - uvicorn app.main:app --reload --port {{.PORT}}',
        '  docs:', '    cmds:', '      - cmd: mkdocs serve', '  lint: ruff check .', '',
      ].join('\n'),
      'taskfiles/api.yml': 'version: "3"\ntasks:\n  serve:\n    cmds:\n      - go run ./cmd/api --port 8020\n',
      'web/justfile': [
        'port := "4010"', '', '# the dev server', 'dev:', '    npx vite --port {{port}}', '',
        '@preview target="x":', '    npx vite preview', 'db:', '    -docker run -d -p 5440:5432 postgres', '',
      ].join('\n'),
    });
    assert.deepEqual(await rows(root), [
      [4010, 'dev', 'web/justfile', 'listen'],
      [4173, 'preview', 'default:vite', 'listen'],
      [5440, 'db', 'web/justfile', 'listen'],
      [8000, 'docs', 'default:mkdocs', 'listen'],
      [8010, 'dev', 'Taskfile.yml', 'listen'],
      [8020, 'api:serve', 'Taskfile.yml', 'listen'],
    ]);
  });
});
