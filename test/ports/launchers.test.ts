import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { portsInCommand } from '../../src/ports/command.ts';
import { composerScripts } from '../../src/ports/composer.ts';
import { isBootWebApp } from '../../src/ports/jvm.ts';
import { firebasePorts, launchPorts, tomlPorts } from '../../src/ports/platforms.ts';
import { scan } from '../../src/scan/index.ts';
import { fixture, makeTree } from '../helpers/index.ts';

type Row = [port: number, script: string | null, source: string, kind: string];
const rows = async (root: string): Promise<Row[]> =>
  (await scan(root)).ports.map((p) => [p.port, p.script_name, p.config_source, (p as { kind?: string }).kind ?? '']);
const summary = (line: string): string[] => {
  const r = portsInCommand(line);
  return [...r.ports.map(String), ...r.defaults.map((d) => `${d.tool}:${d.port}`)];
};

suite('launchers, each as its CLI documents it', () => {
  const cases: Array<[string, string[]]> = [
    ['expo start', ['expo:8081']], ['npx expo start --port 8082', ['8082']], ['expo run:ios', ['expo:8081']],
    ['expo export --platform web', []], ['react-native start', ['react-native:8081']], ['react-native start --port 8088', ['8088']],
    ['prisma studio', ['prisma:5555']], ['prisma studio -p 5556', ['5556']], ['prisma generate', []], ['prisma db push', []],
    ['drizzle-kit studio', ['drizzle-kit:4983']], ['drizzle-kit studio --port 4984', ['4984']], ['drizzle-kit push', []],
    ['netlify dev', ['netlify:8888']], ['ntl dev --port 8890', ['8890']], ['netlify deploy --prod', []],
    ['vercel dev', ['vercel:3000']], ['vercel dev --listen 3005', ['3005']],
    ['wrangler dev', ['wrangler:8787']], ['wrangler deploy', []],
    ['storybook dev', ['storybook:6006']], ['storybook build', []],
    ['php artisan serve', ['laravel:8000']], ['symfony serve', ['symfony:8000']], ['mix phx.server', ['phoenix:4000']],
    ['flask run', ['flask:5000']], ['uvicorn main:app --reload', ['uvicorn:8000']], ['hypercorn main:app', ['hypercorn:8000']],
    ['gunicorn app:app', ['gunicorn:8000']], ['gunicorn -c gunicorn.conf.py app:app', []], ['hypercorn -b 0.0.0.0:8100 main:app', ['8100']],
    ['python manage.py runserver', ['django:8000']], ['bin/rails server', ['rails:3000']],
    ['sanity dev', ['sanity:3333']], ['strapi develop', ['strapi:1337']], ['vitepress dev docs', ['vitepress:5173']],
    ['react-router dev', ['react-router:5173']], ['react-router dev --config preview/vite.config.ts', []],
    ['vite --config vite.docs.config.ts', []], ['ionic serve', ['ionic:8100']], ['jupyter lab --port 8899', ['8899']],
    ['hardhat node', ['hardhat:8545']], ['anvil', ['anvil:8545']], ['func start', ['azure-functions:7071']],
    ['sam local start-api', ['sam:3000']], ['serverless offline --httpPort 4001', ['4001']],
    ['fumadocs-mdx && next typegen && tsc --noEmit', []],
  ];
  for (const [line, expected] of cases) test(line, () => assert.deepEqual(summary(line), expected));
});

suite('composer, Spring Boot, Firebase and .NET readers', () => {
  test('composer scripts: lists, @php, @script calls; PHP callbacks and @putenv dropped', () => {
    assert.deepEqual([...composerScripts({ scripts: {
      dev: ['Composer\\Config::disableProcessTimeout', '@php artisan serve --port=8001'], ci: '@dev', env: ['@putenv X=1'], bad: 3,
    } })], [['dev', 'php artisan serve --port=8001'], ['ci', 'composer run dev']]);
    assert.deepEqual([...composerScripts({ scripts: [] })], []);
  });

  test('a Boot web app is told by its build file', () => {
    assert.equal(isBootWebApp('id("org.springframework.boot")\nimplementation("org.springframework.boot:spring-boot-starter-webmvc")'), true);
    assert.equal(isBootWebApp('<artifactId>spring-boot-starter-parent</artifactId><artifactId>spring-boot-starter-batch</artifactId>'), false);
    assert.equal(isBootWebApp('<artifactId>micronaut-http-server-netty</artifactId>'), false);
  });

  test('firebase.json emulators and launchSettings profiles', () => {
    assert.deepEqual(firebasePorts({ emulators: { auth: { port: 9199 }, hosting: {}, ui: { enabled: false }, custom: { port: 1 }, singleProjectMode: true } }),
      [['auth', 9199], ['hosting', 5000]]);
    assert.deepEqual(firebasePorts({ emulators: [] }), []);
    assert.deepEqual(launchPorts({ profiles: { https: { applicationUrl: 'https://localhost:7001/;http://0.0.0.0:5001' }, x: { applicationUrl: 5 } } }),
      [['https', 7001], ['https', 5001]]);
  });
});

suite('fixtures of launcher-heavy apps', () => {
  test('Laravel: composer dev (artisan serve + npm run dev), Sail compose publishing DB_PORT; Redis and mail connect', async () => {
    assert.deepEqual(await rows(fixture('ports-laravel')), [
      [80, 'laravel.test', 'docker-compose.yml', 'listen'],
      [2525, null, '.env.example', 'connect'],
      [3306, null, '.env.example', 'listen'],
      [3306, 'mysql', 'docker-compose.yml', 'listen'],
      [5173, 'dev', 'default:vite', 'listen'],
      [5173, 'laravel.test', 'docker-compose.yml', 'listen'],
      [6379, null, '.env.example', 'connect'],
      [8000, 'dev', 'default:laravel', 'listen'],
    ]);
  });

  test('Spring Boot: 8080 for a web module without server.port; management port kept; no default for a batch module', async () => {
    assert.deepEqual(await rows(fixture('ports-spring-boot')), [
      [5432, 'postgres', 'compose.yaml', 'listen'],
      [8080, null, 'default:spring-boot', 'listen'],
      [8081, null, 'src/main/resources/application.yml', 'listen'],
      [9000, null, 'admin/src/main/resources/application.properties', 'listen'],
    ]);
  });

  test('Turborepo: with-env Next, Expo Metro, drizzle/prisma studio, Storybook, Firebase emulators, netlify dev', async () => {
    assert.deepEqual(await rows(fixture('ports-turborepo')), [
      [3000, 'dev', 'default:next', 'listen'],
      [3000, 'start', 'default:next', 'listen'],
      [4983, 'studio', 'default:drizzle-kit', 'listen'],
      [5001, 'functions', 'apps/functions/firebase.json', 'listen'],
      [5556, 'studio', 'packages/api/package.json', 'listen'],
      [6006, 'storybook', 'apps/docs/package.json', 'listen'],
      [6543, null, '.env.example', 'connect'],
      [8081, 'android', 'default:expo', 'listen'],
      [8081, 'dev', 'default:expo', 'listen'],
      [8081, 'dev:ios', 'default:expo', 'listen'],
      [8085, 'firestore', 'apps/functions/firebase.json', 'listen'],
      [8888, 'dev', 'default:netlify', 'listen'],
      [9099, 'auth', 'apps/functions/firebase.json', 'listen'],
    ]);
  });

  test('.NET: launch profiles\' application URLs; a connection string is not a port row', async () => {
    assert.deepEqual(await rows(fixture('ports-dotnet')), [
      [5080, 'http', 'src/Api/Properties/launchSettings.json', 'listen'],
      [5080, 'https', 'src/Api/Properties/launchSettings.json', 'listen'],
      [7080, 'https', 'src/Api/Properties/launchSettings.json', 'listen'],
    ]);
  });

  test('.NET: a launchSettings.json written with a byte order mark (as Visual Studio saves it) is read', async (t) => {
    const settings = { profiles: { http: { commandName: 'Project', applicationUrl: 'http://localhost:5000' } } };
    const root = makeTree(t, { 'src/Web/Properties/launchSettings.json': `\uFEFF${JSON.stringify(settings, null, 2)}` });
    assert.deepEqual(await rows(root), [[5000, 'http', 'src/Web/Properties/launchSettings.json', 'listen']]);
  });

  test('a vite.config server.port replaces the react-router dev default in its package', async (t) => {
    const root = makeTree(t, {
      'apps/remix/package.json': JSON.stringify({ scripts: { dev: 'react-router dev' } }),
      'apps/remix/vite.config.ts': 'export default defineConfig({ server: { port: 3000, strictPort: true } })',
      'apps/other/package.json': JSON.stringify({ scripts: { dev: 'react-router dev' } }),
    });
    assert.deepEqual(await rows(root), [
      [3000, null, 'apps/remix/vite.config.ts', 'listen'],
      [5173, 'dev', 'default:react-router', 'listen'],
    ]);
  });

  test('Procfile and Makefile lines that call package.json scripts are read through them; .flaskenv', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { start: 'next start -p 4100', dev: 'vite' } }),
      'Procfile': 'web: npm start\n',
      'Makefile': 'dev:\n\tnpm run dev\n',
      '.flaskenv': 'FLASK_APP=app\nFLASK_RUN_PORT=5050\n',
      'api/Procfile': 'web: flask run\n',
      // A tutorial app's shape: FLASK_APP and FLASK_DEBUG only, started with `flask run` (no script says so).
      'blog/.flaskenv': 'FLASK_APP=microblog.py\nFLASK_DEBUG=1\n',
    });
    assert.deepEqual(await rows(root), [
      [4100, 'start', 'package.json', 'listen'],
      [4100, 'web', 'Procfile', 'listen'],
      [5000, null, 'blog/.flaskenv', 'listen'],
      [5000, 'web', 'default:flask', 'listen'],
      [5050, null, '.flaskenv', 'listen'],
      [5173, 'dev', 'default:vite', 'listen'],
    ]);
  });

  test('netlify.toml and wrangler.toml [dev] ports replace the CLI defaults; supabase/config.toml sections', async (t) => {
    const root = makeTree(t, {
      'site/package.json': JSON.stringify({ scripts: { dev: 'netlify dev' } }),
      'site/netlify.toml': '[build]\n  command = "npm run build"\n[dev]\n  port = 8890\n  targetPort = 3000\n',
      'worker/package.json': JSON.stringify({ scripts: { dev: 'wrangler dev' } }),
      'worker/wrangler.toml': 'name = "api"\nmain = "src/index.ts"\n[dev]\nport = 8790\n',
      'supabase/config.toml': 'project_id = "app"\n[api]\nenabled = true\nport = 54321\n[db]\nport = 54322\nshadow_port = 54320\n' +
        '[studio]\nport = 54323\n[analytics]\nenabled = false\nport = 54327\n',
      'docs/config.toml': 'baseURL = "https://example.org"\n[api]\nport = 1313\n',
    });
    assert.deepEqual(await rows(root), [
      [8790, 'dev', 'worker/wrangler.toml', 'listen'],
      [8890, 'dev', 'site/netlify.toml', 'listen'],
      [54321, 'supabase:api', 'supabase/config.toml', 'listen'],
      [54322, 'supabase:db', 'supabase/config.toml', 'listen'],
      [54323, 'supabase:studio', 'supabase/config.toml', 'listen'],
    ]);
    assert.deepEqual(tomlPorts('netlify.toml', '[dev\n'), []);
    assert.deepEqual(tomlPorts('config.toml', '[api]\nport = 1\n'), []);
  });
});

