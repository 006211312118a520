import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { portsInCommand } from '../../src/ports/command.ts';

const ports = (line: string, scripts?: string[]): number[] => portsInCommand(line, scripts ? { scripts: new Set(scripts) } : {}).ports;
const defaults = (line: string): string[] => portsInCommand(line).defaults.map((d) => `${d.tool}:${d.port}`);

suite('portsInCommand() flags', () => {
  const cases: Array<[string, number[]]> = [
    ['node server.js --port 3000', [3000]],
    ['node server.js --port=3000', [3000]],
    ['next dev -p 3001', [3001]],
    ['next start --port=3002', [3002]],
    ['vite --port 5175', [5175]],
    ['serve -s build -l 5000', [5000]],
    ['serve -l tcp://0.0.0.0:4000', [4000]],
    ['http-server dist -p 8081', [8081]],
    ['http-server -p8089', [8089]],
    ['webpack serve --port 8082', [8082]],
    ['ng serve --port 4300', [4300]],
    ['astro dev --port 4322', [4322]],
    ['nuxt dev --port 3003', [3003]],
    ['nuxi dev -p 3004', [3004]],
    ['remix vite:dev --port 5176', [5176]],
    ['wrangler dev --port 8788', [8788]],
    ['storybook dev -p 6007', [6007]],
    ['start-storybook -p 9009', [9009]],
    ['jekyll serve -P 4001', [4001]],
    ['python manage.py runserver 0.0.0.0:8001', [8001]],
    ['python3 manage.py runserver 8002', [8002]],
    ['uvicorn app.main:app --reload --port 8003', [8003]],
    ['python -m flask --app hello run -p 5001', [5001]],
    ['flask run --port=5002', [5002]],
    ['gunicorn app:app -b 0.0.0.0:8004 -w 4', [8004]],
    ['gunicorn --bind=:8005 app:app', [8005]],
    ['bundle exec rails s -p 3005', [3005]],
    ['bin/rails server --port 3006', [3006]],
    ['php artisan serve --port=8006', [8006]],
    ['php -S localhost:8007 -t public', [8007]],
    ['python -m http.server 8008', [8008]],
  ];
  for (const [line, expected] of cases) test(line, () => assert.deepEqual(ports(line), expected));
});

suite('portsInCommand() -p is a port only where the tool says so', () => {
  for (const line of ['tsc -p tsconfig.json', 'jest -p', 'mkdir -p dist', 'npm -p foo', 'npx -p typescript tsc', 'docker compose -p app up', 'concurrently -p "[{name}]" "echo hi"', 'daphne -b 0.0.0.0 app.asgi:application', 'rails s -b 0.0.0.0']) {
    test(line, () => assert.deepEqual(ports(line), []));
  }
});

suite('portsInCommand() environment and wrappers', () => {
  test('PORT=, cross-env, env and export prefixes', () => {
    assert.deepEqual(ports('PORT=3000 node server.js'), [3000]);
    assert.deepEqual(ports('cross-env PORT=3001 NODE_ENV=dev next dev'), [3001]);
    assert.deepEqual(ports('env -u X PORT=3002 node .'), [3002]);
    assert.deepEqual(ports('export PORT=3003 && node .'), [3003]);
    assert.deepEqual(ports('API_PORT=4001 node .'), [4001]);
  });

  test('sh default expansions give their literal default; bare variables give nothing', () => {
    assert.deepEqual(ports('PORT=${PORT:-3005} node server.js'), [3005]);
    assert.deepEqual(ports('gunicorn -b 0.0.0.0:${PORT:-8010} app:app'), [8010]);
    const found = portsInCommand('next start -p $PORT');
    assert.deepEqual([found.ports, found.unresolved, found.defaults], [[], ['$PORT'], []]);
  });

  test('looks through npx, yarn, pnpm exec, bundle exec, poetry run, sh -c, concurrently and nodemon --exec', () => {
    assert.deepEqual(ports('npx --yes vite --port 5180'), [5180]);
    assert.deepEqual(ports('yarn vite --port 5181'), [5181]);
    assert.deepEqual(ports('pnpm exec astro dev --port 4330'), [4330]);
    assert.deepEqual(ports('poetry run uvicorn main:app --port 8020'), [8020]);
    assert.deepEqual(ports('sh -c "python manage.py runserver 0:8021"'), [8021]);
    assert.deepEqual(ports(`concurrently -n api,web "uvicorn a:b --port 8022" "vite --port 5182"`), [8022, 5182]);
    assert.deepEqual(ports(`nodemon --exec 'flask run -p 5003'`), [5003]);
    assert.deepEqual(ports('npm run dev -- --port 3333'), [3333]);
  });

  test('`yarn serve` runs the package script named serve, not the serve tool', () => {
    assert.deepEqual(portsInCommand('yarn serve', { scripts: new Set(['serve']) }).defaults, []);
    assert.deepEqual(portsInCommand('yarn serve').defaults.map((d) => d.port), [3000]);
  });

  test('out-of-range and non-numeric values are dropped', () => {
    assert.deepEqual(ports('node . --port 0 --port 65536 --port abc --port 65535'), [65535]);
  });
});

suite('portsInCommand() defaults', () => {
  test('serving commands without a port get their default, keyed by tool and port', () => {
    assert.deepEqual(defaults('vite'), ['vite:5173']);
    assert.deepEqual(defaults('vite preview'), ['vite:4173']);
    assert.deepEqual(defaults('next dev'), ['next:3000']);
    assert.deepEqual(defaults('react-scripts start'), ['react-scripts:3000']);
    assert.deepEqual(defaults('ng serve'), ['angular:4200']);
    assert.deepEqual(defaults('astro dev'), ['astro:4321']);
    assert.deepEqual(defaults('nuxt dev'), ['nuxt:3000']);
    assert.deepEqual(defaults('storybook dev'), ['storybook:6006']);
    assert.deepEqual(defaults('python manage.py runserver'), ['django:8000']);
    assert.deepEqual(defaults('flask run'), ['flask:5000']);
    assert.deepEqual(defaults('rails s'), ['rails:3000']);
    assert.deepEqual(defaults('uvicorn main:app'), ['uvicorn:8000']);
    assert.deepEqual(portsInCommand('vite').defaults[0]?.key, 'vite:5173');
  });

  test('non-serving subcommands and config flags give none', () => {
    for (const line of ['vite build', 'next build', 'next lint', 'ng test', 'astro build', 'python manage.py migrate', 'flask db upgrade', 'puma -C config/puma.rb', 'gunicorn -c gunicorn.conf.py app:app', 'webpack serve --config webpack.dev.js', 'storybook build']) {
      assert.deepEqual(defaults(line), [], line);
    }
  });

  test('a line that sets a port anywhere gets no default', () => {
    assert.deepEqual(defaults('PORT=4000 next dev'), []);
    assert.deepEqual(defaults('tsc -p . && next start -p $PORT'), []);
    assert.deepEqual(defaults('tsc -p tsconfig.json && vite'), ['vite:5173']);
    assert.deepEqual(defaults('DB_PORT=5432 next dev'), ['next:3000']);
  });
});

suite('portsInCommand() docker run -p', () => {
  test('the host side of a published port; a container port alone or a build publishes nothing', () => {
    assert.deepEqual(ports('docker run -d -p 5432:5432 -e POSTGRES_PASSWORD=x postgres:16'), [5432]);
    assert.deepEqual(ports('sudo docker run -t -i -d -p 8001:8000 --name app img'), [8001]);
    assert.deepEqual(ports('docker run --publish=127.0.0.1:9000:9000/tcp minio && podman run -p 6380:6379 redis'), [9000, 6380]);
    assert.deepEqual(ports('docker run -p "${DB_PORT:-5433}":5432 postgres'), [5433]);
    assert.deepEqual(ports('docker run -p 80 nginx && docker build -t x . && docker compose up -d'), []);
  });
});
