import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { portsInCommand } from '../../src/ports/command.ts';
import { scriptCalls } from '../../src/ports/follow.ts';
import { scan } from '../../src/scan/index.ts';
import { makeTree } from '../helpers/index.ts';

const found = (line: string, scripts: Record<string, string>, self?: string): [number[], string[]] => {
  const r = portsInCommand(line, { scripts: new Map(Object.entries(scripts)), ...(self ? { self } : {}) });
  return [r.ports, r.defaults.map((d) => `${d.tool}:${d.port}`)];
};

suite('scriptCalls()', () => {
  const scripts = new Map([['dev', 'next dev'], ['with-env', 'dotenv -e ../../.env --'], ['start', 'node .'], ['test', 'jest'],
    ['dev:api', 'uvicorn a:b'], ['dev:web', 'vite'], ['dev:web:x', 'vite --port 1'], ['serve', 'serve -s build']]);
  const cases: Array<[string[], Array<[string, string]> | undefined]> = [
    [['npm', 'run', 'dev'], [['dev', 'next dev']]],
    [['npm', 'run', '--silent', 'dev', '--', '-p', '4000'], [['dev', "next dev '-p' '4000'"]]],
    [['npm', 'start'], [['start', 'node .']]],
    [['npm', 't'], [['test', 'jest']]],
    [['npm', 'dev'], undefined],
    [['npm', 'install'], undefined],
    [['pnpm', 'with-env', 'next', 'dev'], [['with-env', "dotenv -e ../../.env -- 'next' 'dev'"]]],
    [['yarn', 'serve'], [['serve', 'serve -s build']]],
    [['bun', 'run', 'dev'], [['dev', 'next dev']]],
    [['pnpm', '--filter', 'web', 'dev'], undefined],
    [['pnpm', '-r', 'dev'], undefined],
    [['npm', 'run', 'dev', '--workspace=web'], undefined],
    [['npm', 'start', '--prefix', 'client'], undefined],
    [['npm', 'start', '--', '--prefix', 'x'], [['start', "node . '--prefix' 'x'"]]],
    [['npm', 'run', '-w', 'web', 'dev'], undefined],
    [['yarn', 'workspace', 'web', 'dev'], undefined],
    [['pnpm', 'nope'], undefined],
    [['run-p', 'dev:*'], [['dev:api', 'uvicorn a:b'], ['dev:web', 'vite']]],
    [['npm-run-all', '--parallel', 'dev:**', 'start'], [['dev:api', 'uvicorn a:b'], ['dev:web', 'vite'], ['dev:web:x', 'vite --port 1'], ['start', 'node .']]],
    [['node', 'dev'], undefined],
  ];
  for (const [argv, expected] of cases) {
    test(argv.join(' '), () => assert.deepEqual(scriptCalls(argv, scripts)?.map((c) => [c.name, c.line]), expected));
  }
});

suite('portsInCommand() follows the package\'s scripts', () => {
  test('with-env wrapper: `pnpm with-env next dev` is next dev', () => {
    assert.deepEqual(found('pnpm with-env next dev', { 'with-env': 'dotenv -e ../../.env --' }), [[], ['next:3000']]);
  });

  test('arguments after the script name reach the tool; PORT= before the call counts', () => {
    assert.deepEqual(found('npm run dev -- --port 4000', { dev: 'vite' }), [[4000], []]);
    assert.deepEqual(found('PORT=4100 npm run dev', { dev: 'next dev' }), [[4100], []]);
    assert.deepEqual(found('yarn dev -p 4200', { dev: 'next dev' }), [[4200], []]);
  });

  test('chains, concurrently and run-p', () => {
    const scripts = { dev: 'concurrently "npm run server" "npm run client"', server: 'nodemon --exec "uvicorn app:api --port 8001"', client: 'npm run web', web: 'vite' };
    assert.deepEqual(found(scripts.dev, scripts), [[8001], []]);
    assert.deepEqual(found('run-p dev:*', { 'dev:a': 'next dev -p 3001', 'dev:b': 'astro dev' }), [[3001], []]);
  });

  test('cycles and deep chains end; the script itself is not re-entered', () => {
    assert.deepEqual(found('npm run b', { a: 'npm run b', b: 'npm run a && vite' }, 'a'), [[], ['vite:5173']]);
    assert.deepEqual(found('npm run dev', { dev: 'npm run dev -- --port 1' }, 'dev'), [[], []]);
    const chain: Record<string, string> = { s0: 'npm run s1' };
    for (let k = 1; k < 20; k++) chain[`s${k}`] = `npm run s${k + 1}`;
    chain.s20 = 'vite --port 1234';
    assert.deepEqual(found('npm run s0', chain), [[], []]);
    chain.s20 = 'vite --port 1234';
    assert.deepEqual(found('npm run s15', chain), [[1234], []]);
  });

  test('fan-out has a budget: a script calling a wide tree of scripts reads at most a bounded number of lines', () => {
    const scripts: Record<string, string> = {};
    for (let level = 0; level < 4; level++) scripts[`l${level}`] = Array.from({ length: 10 }, () => `npm run l${level + 1}`).join(' && ');
    scripts.l4 = 'vite --port 4321';
    // 10^4 paths if followed in full; the budget stops at 200 lines read.
    const [ports] = found('npm run l0', scripts);
    assert.ok(ports.length > 0 && ports.length <= 200 && ports.every((p) => p === 4321), String(ports.length));
  });
});

suite('script following on a tree', () => {
  test('create-t3-turbo shape: dev through with-env, studio through with-env, start shares dev\'s default', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { dev: 'turbo watch dev --continue', 'db:studio': 'turbo -F @acme/db studio' } }),
      'apps/nextjs/package.json': JSON.stringify({ scripts: {
        build: 'pnpm with-env next build', dev: 'pnpm with-env next dev', start: 'pnpm with-env next start', 'with-env': 'dotenv -e ../../.env --',
      } }),
      'apps/web/package.json': JSON.stringify({ scripts: { dev: 'npm run serve -- --port 5180', serve: 'vite' } }),
      '.env.example': 'POSTGRES_URL="postgres://postgres:pw@aws-0.pooler.supabase.com:6543/postgres"\n',
    });
    const rows = (await scan(root)).ports.map((p) => [p.port, p.script_name, p.config_source, (p as { kind?: string }).kind]);
    assert.deepEqual(rows, [
      [3000, 'dev', 'default:next', 'listen'],
      [3000, 'start', 'default:next', 'listen'],
      [5173, 'serve', 'default:vite', 'listen'],
      [5180, 'dev', 'apps/web/package.json', 'listen'],
      [6543, null, '.env.example', 'connect'],
    ]);
  });
});

suite('cd in a line', () => {
  test('`cd proxy && pnpm dev` is another package: not this one\'s dev script; entries are read from there', () => {
    const r = portsInCommand('cd proxy && pnpm dev && node server.js', { scripts: new Map([['dev', 'nuxt dev']]) });
    assert.deepEqual([r.ports, r.defaults, r.entries], [[], [], ['proxy/server.js']]);
    const far = portsInCommand('cd $HOME && node app.js ; npm run dev', { scripts: new Map([['dev', 'vite']]) });
    assert.deepEqual([far.defaults, far.entries], [[], []]);
    const sub = portsInCommand('sh -c "cd web" && npm run dev', { scripts: new Map([['dev', 'vite']]) });
    assert.deepEqual(sub.defaults.map((d) => d.key), ['vite:5173']);
  });

  test('nest start runs src/main.ts', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { start: 'nest start', 'start:prod': 'node dist/main' } }),
      'src/main.ts': 'async function bootstrap() {\n  const app = await NestFactory.create(AppModule);\n  await app.listen(process.env.PORT ?? 3000);\n}\nbootstrap();\n',
    });
    assert.deepEqual((await scan(root)).ports.map((p) => [p.port, p.script_name, p.config_source]), [[3000, 'start', 'src/main.ts']]);
  });
});

suite('composer calls', () => {
  const composer = new Map([['dev', 'php artisan serve'], ['serve', 'php -S localhost:8080 -t public']]);
  const cases: Array<[string[], Array<[string, string]> | undefined]> = [
    [['composer', 'run', 'dev'], [['composer:dev', 'php artisan serve']]],
    [['composer', 'dev'], [['composer:dev', 'php artisan serve']]],
    [['composer', 'run-script', '--timeout=0', 'dev', '--', '--port=8001'], [['composer:dev', "php artisan serve '--port=8001'"]]],
    [['composer', '--no-interaction', 'serve'], [['composer:serve', 'php -S localhost:8080 -t public']]],
    [['composer', '-d', 'api', 'run', 'dev'], undefined],
    [['composer', 'install'], undefined],
    [['composer'], undefined],
  ];
  for (const [argv, expected] of cases) {
    test(argv.join(' '), () => assert.deepEqual(scriptCalls(argv, undefined, composer)?.map((c) => [c.name, c.line]), expected));
  }

  test('without composer scripts, composer is just a command', () => {
    assert.equal(scriptCalls(['composer', 'run', 'dev'], new Map([['dev', 'vite']])), undefined);
  });
});
