/**
 * Per-tool port flags and defaults, as data. A flag means "port" only for the tools listed here: `-p` is
 * a port for `next` and `http-server` but a project file for `tsc`, a package for `npx` and "parents"
 * for `mkdir`, so unknown commands only get the unambiguous `--port`.
 */

/**
 * How a flag's (or positional's) value names the port. `port`: a bare number; `addr`: `host:port`, a URL or a
 * number; `publish`: docker's `[ip:]hostPort:containerPort[/proto]`, whose host side is the port (a container
 * port alone is published on a random host port: none).
 */
export type ValueKind = 'port' | 'addr' | 'publish';

/** One serving mode of a tool (`vite`, `vite preview`, `next start`, ...). */
export interface Mode {
  /** Port the tool listens on when none is given, if it has a fixed one. */
  readonly default?: number;
  /** Flags whose value is the port, with how to read it. */
  readonly flags: Readonly<Record<string, ValueKind>>;
  /** The first positional argument after the mode word is an address (`manage.py runserver 0.0.0.0:8000`). */
  readonly positional?: ValueKind;
  /** Flags naming a config file that may set the port (`puma -C config/puma.rb`): given one, no default is assumed. */
  readonly config?: readonly string[];
}

/** A command-line tool: its serving modes keyed by subcommand ('' = the bare command), and its non-serving subcommands. */
export interface Tool {
  /** Name used in `default:<name>` config sources. */
  readonly name: string;
  readonly modes: Readonly<Record<string, Mode>>;
  /** Subcommands that do not serve (`vite build`): the first one seen means "no port". */
  readonly skip?: readonly string[];
}

const P = 'port' as const;
const A = 'addr' as const;
const dockerRun: Mode = { flags: { '-p': 'publish', '--publish': 'publish' } };

// `--config other/vite.config.ts`: the config finder reads that file's port, so no default is assumed.
const viteDev: Mode = { default: 5173, flags: { '--port': P }, config: ['-c', '--config'] };
const vite: Tool = {
  name: 'vite',
  modes: { '': viteDev, dev: viteDev, serve: viteDev, preview: { default: 4173, flags: { '--port': P }, config: ['-c', '--config'] } },
  skip: ['build', 'optimize'],
};
const next: Tool = {
  name: 'next',
  modes: { '': { default: 3000, flags: { '-p': P, '--port': P } }, dev: { default: 3000, flags: { '-p': P, '--port': P } }, start: { default: 3000, flags: { '-p': P, '--port': P } } },
  skip: ['build', 'lint', 'export', 'info', 'telemetry', 'experimental-compile', 'typegen'],
};
const nuxt: Tool = {
  name: 'nuxt',
  modes: { dev: { default: 3000, flags: { '-p': P, '--port': P } }, preview: { default: 3000, flags: { '-p': P, '--port': P } }, start: { default: 3000, flags: { '-p': P, '--port': P } } },
};
const storybook: Mode = { default: 6006, flags: { '-p': P, '--port': P } };
const webpackServe: Mode = { default: 8080, flags: { '--port': P }, config: ['-c', '--config'] };
const djangoServe: Mode = { default: 8000, flags: {}, positional: A };
const rails: Mode = { default: 3000, flags: { '-p': P, '--port': P } };
const ngServe: Mode = { default: 4200, flags: { '--port': P } };
// Metro, the bundler of Expo and React Native, listens on 8081 for `expo start` and the run commands.
const metro: Mode = { default: 8081, flags: { '-p': P, '--port': P } };
const netlifyDev: Mode = { default: 8888, flags: { '-p': P, '--port': P } };
const slsOffline: Mode = { default: 3000, flags: { '--httpPort': P } };

/** Tools by the command word that runs them (basename, so `./node_modules/.bin/vite` and `bin/rails` match). */
export const TOOLS: ReadonlyMap<string, Tool> = new Map<string, Tool>([
  ['vite', vite],
  ['next', next],
  ['nuxt', nuxt],
  ['nuxi', nuxt],
  ['react-scripts', { name: 'react-scripts', modes: { start: { default: 3000, flags: {} } } }],
  ['ng', { name: 'angular', modes: { serve: ngServe, s: ngServe, dev: ngServe } }],
  ['astro', { name: 'astro', modes: { dev: { default: 4321, flags: { '--port': P } }, start: { default: 4321, flags: { '--port': P } }, preview: { default: 4321, flags: { '--port': P } } } }],
  ['remix', { name: 'remix', modes: { dev: { default: 3000, flags: { '--port': P } }, 'vite:dev': { default: 5173, flags: { '--port': P } }, 'vite:preview': { default: 4173, flags: { '--port': P } } } }],
  ['remix-serve', { name: 'remix-serve', modes: { '': { default: 3000, flags: {} } } }],
  ['wrangler', { name: 'wrangler', modes: { dev: { default: 8787, flags: { '--port': P } }, 'pages dev': { default: 8788, flags: { '--port': P } } }, skip: ['deploy', 'publish', 'login', 'whoami', 'tail', 'kv', 'd1', 'r2', 'secret'] }],
  // webpack's --config may hold devServer.port; the webpack finder reads it, so no default is assumed with one.
  ['webpack', { name: 'webpack', modes: { serve: webpackServe, server: webpackServe } }],
  ['webpack-cli', { name: 'webpack', modes: { serve: webpackServe, server: webpackServe } }],
  ['webpack-dev-server', { name: 'webpack', modes: { '': webpackServe } }],
  ['vue-cli-service', { name: 'vue-cli', modes: { serve: { default: 8080, flags: { '--port': P } } } }],
  ['storybook', { name: 'storybook', modes: { dev: storybook } }],
  ['start-storybook', { name: 'storybook', modes: { '': storybook } }],
  ['serve', { name: 'serve', modes: { '': { default: 3000, flags: { '-l': A, '--listen': A, '-p': P, '--port': P } } } }],
  ['http-server', { name: 'http-server', modes: { '': { default: 8080, flags: { '-p': P, '--port': P } } } }],
  ['live-server', { name: 'live-server', modes: { '': { default: 8080, flags: { '--port': P } } } }],
  ['parcel', { name: 'parcel', modes: { '': { default: 1234, flags: { '-p': P, '--port': P } }, serve: { default: 1234, flags: { '-p': P, '--port': P } } }, skip: ['build', 'watch'] }],
  ['gatsby', { name: 'gatsby', modes: { develop: { default: 8000, flags: { '-p': P, '--port': P } }, serve: { default: 9000, flags: { '-p': P, '--port': P } } } }],
  ['docusaurus', { name: 'docusaurus', modes: { start: { default: 3000, flags: { '-p': P, '--port': P } }, serve: { default: 3000, flags: { '-p': P, '--port': P } } } }],
  ['json-server', { name: 'json-server', modes: { '': { default: 3000, flags: { '-p': P, '--port': P } } } }],
  ['ember', { name: 'ember', modes: { serve: { default: 4200, flags: { '-p': P, '--port': P } }, s: { default: 4200, flags: { '-p': P, '--port': P } }, server: { default: 4200, flags: { '-p': P, '--port': P } } } }],
  ['hugo', { name: 'hugo', modes: { server: { default: 1313, flags: { '-p': P, '--port': P } }, serve: { default: 1313, flags: { '-p': P, '--port': P } } } }],
  // Jekyll's port flag is a capital -P.
  ['jekyll', { name: 'jekyll', modes: { serve: { default: 4000, flags: { '-P': P, '--port': P } }, s: { default: 4000, flags: { '-P': P, '--port': P } }, server: { default: 4000, flags: { '-P': P, '--port': P } } } }],
  // Python. `manage.py` and `django-admin` take the address as a positional argument.
  ['manage.py', { name: 'django', modes: { runserver: djangoServe, runserver_plus: djangoServe } }],
  ['django-admin', { name: 'django', modes: { runserver: djangoServe } }],
  ['flask', { name: 'flask', modes: { run: { default: 5000, flags: { '-p': P, '--port': P } } } }],
  ['uvicorn', { name: 'uvicorn', modes: { '': { default: 8000, flags: { '--port': P } } } }],
  ['fastapi', { name: 'fastapi', modes: { dev: { default: 8000, flags: { '--port': P } }, run: { default: 8000, flags: { '--port': P } } } }],
  ['gunicorn', { name: 'gunicorn', modes: { '': { default: 8000, flags: { '-b': A, '--bind': A }, config: ['-c', '--config'] } } }],
  ['hypercorn', { name: 'hypercorn', modes: { '': { default: 8000, flags: { '-b': A, '--bind': A }, config: ['-c', '--config'] } } }],
  // daphne's -b is the host, not the port.
  ['daphne', { name: 'daphne', modes: { '': { default: 8000, flags: { '-p': P, '--port': P } } } }],
  ['waitress-serve', { name: 'waitress', modes: { '': { default: 8080, flags: { '--port': P, '--listen': A } } } }],
  ['http.server', { name: 'http.server', modes: { '': { default: 8000, flags: {}, positional: P } } }],
  ['streamlit', { name: 'streamlit', modes: { run: { default: 8501, flags: { '--server.port': P } } } }],
  ['mkdocs', { name: 'mkdocs', modes: { serve: { default: 8000, flags: { '-a': A, '--dev-addr': A } } } }],
  // Ruby and PHP.
  ['rails', { name: 'rails', modes: { s: rails, server: rails } }],
  ['rackup', { name: 'rackup', modes: { '': { default: 9292, flags: { '-p': P, '--port': P }, config: ['-O'] } } }],
  ['puma', { name: 'puma', modes: { '': { default: 9292, flags: { '-p': P, '--port': P, '-b': A, '--bind': A }, config: ['-C', '--config'] } } }],
  ['artisan', { name: 'laravel', modes: { serve: { default: 8000, flags: { '--port': P } } } }],
  ['php', { name: 'php', modes: { '': { flags: { '-S': A } } } }],
  ['symfony', { name: 'symfony', modes: { serve: { default: 8000, flags: { '--port': P } }, 'server:start': { default: 8000, flags: { '--port': P } } } }],
  ['mix', { name: 'phoenix', modes: { 'phx.server': { default: 4000, flags: {} } } }],
  // Mobile and tools that serve a UI or an API on a fixed port (each from its CLI reference).
  ['expo', { name: 'expo', modes: { start: metro, 'run:ios': metro, 'run:android': metro }, skip: ['install', 'prebuild', 'export', 'login'] }],
  ['react-native', { name: 'react-native', modes: { start: metro, 'run-ios': metro, 'run-android': metro } }],
  ['prisma', { name: 'prisma', modes: { studio: { default: 5555, flags: { '-p': P, '--port': P } } }, skip: ['generate', 'migrate', 'db', 'format', 'validate'] }],
  ['drizzle-kit', { name: 'drizzle-kit', modes: { studio: { default: 4983, flags: { '--port': P } } }, skip: ['generate', 'migrate', 'push', 'pull', 'check', 'up'] }],
  ['netlify', { name: 'netlify', modes: { dev: netlifyDev }, skip: ['deploy', 'build', 'link', 'login'] }],
  ['ntl', { name: 'netlify', modes: { dev: netlifyDev }, skip: ['deploy', 'build', 'link', 'login'] }],
  ['vercel', { name: 'vercel', modes: { dev: { default: 3000, flags: { '-l': A, '--listen': A } } }, skip: ['deploy', 'build', 'pull', 'env', 'link'] }],
  ['sanity', { name: 'sanity', modes: { dev: { default: 3333, flags: { '--port': P } }, start: { default: 3333, flags: { '--port': P } }, preview: { default: 3333, flags: { '--port': P } } }, skip: ['build', 'deploy'] }],
  ['strapi', { name: 'strapi', modes: { develop: { default: 1337, flags: {} }, dev: { default: 1337, flags: {} }, start: { default: 1337, flags: {} } }, skip: ['build'] }],
  ['vitepress', { name: 'vitepress', modes: { dev: { default: 5173, flags: { '--port': P } }, preview: { default: 4173, flags: { '--port': P } } }, skip: ['build'] }],
  ['react-router', { name: 'react-router', modes: { dev: { ...viteDev } }, skip: ['build', 'typegen'] }],
  ['react-router-serve', { name: 'react-router-serve', modes: { '': { default: 3000, flags: {} } } }],
  ['vinxi', { name: 'vinxi', modes: { dev: { default: 3000, flags: { '--port': P } } }, skip: ['build'] }],
  ['ionic', { name: 'ionic', modes: { serve: { default: 8100, flags: { '--port': P } } } }],
  ['browser-sync', { name: 'browser-sync', modes: { start: { default: 3000, flags: { '--port': P } } } }],
  ['jupyter', { name: 'jupyter', modes: { lab: { default: 8888, flags: { '--port': P } }, notebook: { default: 8888, flags: { '--port': P } } } }],
  ['hardhat', { name: 'hardhat', modes: { node: { default: 8545, flags: { '--port': P } } } }],
  ['anvil', { name: 'anvil', modes: { '': { default: 8545, flags: { '-p': P, '--port': P } } } }],
  ['func', { name: 'azure-functions', modes: { start: { default: 7071, flags: { '-p': P, '--port': P } } } }],
  ['sam', { name: 'sam', modes: { 'local start-api': { default: 3000, flags: { '-p': P, '--port': P } } } }],
  ['serverless', { name: 'serverless-offline', modes: { offline: slsOffline } }],
  // Medusa's backend, Inngest's dev server and Tilt's UI (each from its CLI reference).
  ['medusa', { name: 'medusa', modes: { develop: { default: 9000, flags: { '-p': P, '--port': P } }, start: { default: 9000, flags: { '-p': P, '--port': P } } } }],
  ['inngest-cli', { name: 'inngest', modes: { dev: { default: 8288, flags: { '-p': P, '--port': P } } } }],
  ['inngest', { name: 'inngest', modes: { dev: { default: 8288, flags: { '-p': P, '--port': P } } } }],
  // `docker run -d -p 5432:5432 postgres` in a Makefile or script: the host side is this machine's port.
  ['docker', { name: 'docker', modes: { run: dockerRun, 'container run': dockerRun } }],
  ['podman', { name: 'podman', modes: { run: dockerRun, 'container run': dockerRun } }],
  ['livereload', { name: 'livereload', modes: { '': { default: 35729, flags: { '-p': P, '--port': P } } } }],
  ['tilt', { name: 'tilt', modes: { up: { default: 10350, flags: { '--port': P } } }, skip: ['down', 'ci', 'logs', 'get', 'trigger'] }],
  ['sls', { name: 'serverless-offline', modes: { offline: slsOffline } }],
]);

/** Flags that are a port for any command, known or not. */
export const GENERIC_FLAGS: Readonly<Record<string, ValueKind>> = { '--port': P };
