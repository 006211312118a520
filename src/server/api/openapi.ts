import type { Route } from '../router.ts';
import { BODIES, SCHEMAS, type Schema } from './schemas.ts';

export interface ResponseDoc {
  readonly description: string;
  /** A component name (`Project`), `Project[]` for an array of one, or a schema; absent: no body. */
  readonly body?: string | Schema;
  /** Media type when not JSON (the event stream). */
  readonly type?: string;
  /** The exact `error` texts this status carries on this route. */
  readonly errors?: readonly string[];
}

export interface RouteDoc {
  readonly summary: string;
  readonly description?: string;
  readonly query?: Readonly<Record<string, string>>;
  /** A name in BODIES. */
  readonly body?: string;
  readonly responses: Readonly<Record<number, ResponseDoc>>;
}

const INVALID_ID = 'Invalid project ID';
const NOT_FOUND = 'Project not found';
const ok = (description: string, body?: string | Schema): ResponseDoc =>
  ({ description, ...(body ? { body } : {}) });
const err = (description: string, ...errors: string[]): ResponseDoc =>
  ({ description, body: 'Error', errors });
const idErrors = { 400: err('Bad id', INVALID_ID), 404: err('No such project', NOT_FOUND) };
const fieldErrors = '`name must be a non-empty string`, `description must be a string or null`, `tags must '
  + 'be an array of strings` (one sentence naming the field)';

/** One entry per route, keyed `METHOD /path`. The OpenAPI test checks every route of the table has one. */
export const ROUTE_DOCS: Readonly<Record<string, RouteDoc>> = {
  'GET /health': {
    summary: 'Liveness',
    description: 'Needs no token.',
    responses: { 200: ok('The server runs', 'Health') },
  },
  'GET /api/openapi.json': {
    summary: 'This API as an OpenAPI 3.1 document',
    responses: { 200: ok('The document', { type: 'object' }) },
  },
  'GET /api/projects': {
    summary: 'List projects, by id',
    query: {
      tag: 'Only projects holding this tag exactly.',
      framework: 'Only projects whose framework equals this, ignoring case.',
      q: 'Only projects whose name, path or description contain this text, ignoring ASCII case.',
    },
    responses: {
      200: ok('The projects (all filters given must hold; an empty value does not filter)', 'Project[]'),
      400: err(
        'A filter over 1024 characters',
        '`tag must be at most 1024 characters of well-formed Unicode` (or `framework`, `q`)',
      ),
      500: err('Listing failed', 'Failed to fetch projects'),
    },
  },
  'POST /api/projects': {
    summary: 'Register a project',
    body: 'ProjectInput',
    responses: {
      201: ok('Registered', 'Project'),
      400: err(
        'Bad input',
        'Name and path are required',
        'Path does not exist',
        'Path must be a directory',
        'Path must be absolute',
        'Refusing to register a filesystem root',
        'name must be a non-empty string',
      ),
      409: err(
        'The path (or another spelling of it) is registered: `project` holds that project',
        'Project with this path already exists',
      ),
    },
  },
  'GET /api/projects/tags': {
    summary: 'Every tag used, unique, alphabetical',
    responses: { 200: ok('The tags', { type: 'array', items: { type: 'string' } }) },
  },
  'POST /api/projects/discover': {
    summary: 'Register every repository or package root under a folder',
    description: 'A root is a directory holding `.git`, `package.json`, `pyproject.toml`, `go.mod` or '
      + '`Cargo.toml`; its subfolders are not searched (a monorepo is one project). Hidden folders, '
      + 'installs and build output (`node_modules`, `vendor`, `.venv`, `dist`, `target`, ...) are skipped, '
      + 'symlinks are not followed. Each root is named after its folder.',
    body: 'DiscoverInput',
    responses: {
      200: ok('What was found', 'DiscoverAnswer'),
      400: err(
        'Bad input',
        'root must be a non-empty string',
        'depth must be an integer from 0 to 16',
        'Path does not exist',
        'Path must be a directory',
        'Path must be absolute',
        'Refusing to register a filesystem root',
      ),
    },
  },
  'POST /api/projects/scan/all': {
    summary: 'Scan every project, in id order',
    description: 'One failing project does not stop the others: its entry carries `error`.',
    query: {
      full: '`1`: ignore what the last scans kept and read every tree whole (same findings, slower).',
    },
    responses: { 200: ok('One entry per project', 'ScanAllEntry[]') },
  },
  'GET /api/projects/:id': {
    summary: 'One project',
    responses: { 200: ok('The project', 'Project'), ...idErrors },
  },
  'PUT /api/projects/:id': {
    summary: 'Change a project\'s name, description, framework or tags',
    body: 'ProjectUpdate',
    responses: {
      200: ok('The updated project', 'Project'),
      400: err('Bad input', INVALID_ID, 'No valid fields to update', fieldErrors),
      404: idErrors[404],
    },
  },
  'DELETE /api/projects/:id': {
    summary: 'Unregister a project (its files are untouched), with its tests and ports',
    responses: { 204: ok('Removed'), ...idErrors },
  },
  'GET /api/projects/:id/tests': {
    summary: 'A project\'s test files, by file_path',
    responses: { 200: ok('The test files', 'Test[]'), ...idErrors },
  },
  'GET /api/projects/:id/ports': {
    summary: 'A project\'s ports, by port then script name',
    query: { kind: '`listen` (default), `connect`, `container` or `all`.' },
    responses: {
      200: ok('The ports', 'ProjectPort[]'),
      400: err('Bad input', INVALID_ID, 'Invalid kind: use listen, connect, container or all'),
      404: idErrors[404],
    },
  },
  'POST /api/projects/:id/scan': {
    summary: 'Scan a project: replaces its tests and ports with what is found, in one transaction',
    description: 'A rescan starts from what the last scan kept (its snapshot): only directories and files '
      + 'whose stat moved are read again; the findings are those of a full scan. See the README\'s Rescans.',
    query: { full: '`1`: ignore the snapshot and read the whole tree again (same findings, slower).' },
    responses: {
      200: ok('What the scan found', 'ScanAnswer'),
      ...idErrors,
      409: err(
        'The directory is gone; the project stays registered',
        'Project directory no longer exists: PATH',
      ),
      500: err(
        'The scan ran out of the scanning thread\'s memory even on its retry',
        'Scan ran out of memory: the project is larger than the scanning thread\'s heap limit',
      ),
    },
  },
  'GET /api/settings': { summary: 'Every setting', responses: { 200: ok('key -> value', 'Settings') } },
  'GET /api/setting-keys': {
    summary: 'The keys projdex reads, what each does and the values it can use',
    responses: { 200: ok('The keys', 'KnownSetting[]') },
  },
  'GET /api/settings/:key': {
    summary: 'One setting',
    responses: {
      200: ok('The setting', 'Setting'),
      400: err('Bad key', 'Setting key must be 1 to 1024 characters of well-formed Unicode'),
      404: err('No such key', 'Setting not found'),
    },
  },
  'PUT /api/settings/:key': {
    summary: 'Store a setting',
    body: 'SettingInput',
    description: 'A key projdex reads (GET /api/setting-keys) takes only a value projdex can use; any '
      + 'other key stores any string.',
    responses: {
      200: ok('As stored', 'Setting'),
      400: err(
        'Bad input',
        'Value is required',
        'value must be a string, number or boolean',
        'Setting key must be 1 to 1024 characters of well-formed Unicode',
        'watch must be on or off (also true/false, yes/no, 1/0), got "maybe"',
      ),
    },
  },
  'DELETE /api/settings/:key': {
    summary: 'Remove a setting',
    responses: {
      204: ok('Removed'),
      400: err('Bad key', 'Setting key must be 1 to 1024 characters of well-formed Unicode'),
      404: err('No such key', 'Setting not found'),
    },
  },
  'GET /api/ports': {
    summary: 'Every listen port of every project, grouped by port',
    query: {
      conflicts: '`1`: only ports claimed by more than one project.',
      live: '`1`: add `live` and `live_note` to each port: who listens on it now (read from the machine at '
        + 'this request).',
    },
    responses: {
      200: ok('The groups, by port', 'PortGroup[]'),
      400: err('Bad input', 'Invalid conflicts: use 1 or 0', 'Invalid live: use 1 or 0'),
    },
  },
  'GET /api/ports/live': {
    summary: 'Every TCP socket listening on this machine now, its process and that process\'s registered '
      + 'project',
    description: 'Linux: read from /proc/net/tcp, /proc/net/tcp6 and the descriptors of the processes this '
      + 'user may inspect (at most 4,096 processes and 100,000 descriptors). Windows: not read '
      + '(`available` false, with a note). Elsewhere (macOS): `lsof -nP -iTCP -sTCP:LISTEN` when '
      + 'installed. Read at each request; nothing is stored.',
    responses: { 200: ok('The sockets', 'LiveSockets') },
  },
  'GET /api/events': {
    summary: 'Live changes, as server-sent events',
    description: 'Event names: `project.created`, `project.updated`, `project.deleted`, `scan.started`, '
      + '`scan.progress`, `scan.finished`, `scan.failed`, `settings.changed`, `run.started`, `run.output` '
      + '(batched, at most 10 a second), `run.file` (one file\'s result), `run.finished`, '
      + '`process.started` (`{ process }`), `process.output` (`{ id, text }`, batched about every 250 ms), '
      + '`process.exited` (`{ process }`), each with one line of JSON `data`. Every event has an `id:` '
      + 'increasing within one server\'s life; reconnect with `Last-Event-ID` to receive what was missed '
      + '(the last 1000 are kept). A `: heartbeat` comment every 15 s. See "Live events in detail" below.',
    responses: {
      200: { description: 'The stream (never ends on its own)', type: 'text/event-stream' },
      503: err('Too many streams open', 'Too many event streams open (limit 32)'),
    },
  },
  'GET /api/projects/overview': {
    summary: 'Per project, in id order: test files, cases, files per runner and listen ports (one request '
      + 'for the dashboard\'s table)',
    responses: { 200: ok('One entry per project', 'Overview[]') },
  },
  'GET /api/projects/:id/scan': {
    summary: 'What the last scan of a project noticed: its notes, runs and truncation',
    responses: {
      200: ok('The summary (empty lists and null times before the first scan)', 'ScanSummary'),
      ...idErrors,
    },
  },
  'POST /api/projects/:id/runs': {
    summary: 'Run the project\'s own tests',
    description: 'Each test command the last scan recorded (`runs`) is a step, run in its package\'s '
      + 'directory with a reporter added where projdex reads that runner\'s results (node --test, Jest, '
      + 'Vitest, Mocha, Jasmine, tap, Playwright, pytest, unittest, Go, cargo, RSpec, minitest, PHPUnit); '
      + 'other commands run as written and their exit code decides. A `test` script\'s `pretest` and '
      + '`posttest` run as `npm test` runs them. Go modules and RSpec, minitest and PHPUnit projects the '
      + 'scan recorded no command for get their usual one (`go test ./...`, `rspec`, `rake test`, '
      + '`phpunit`). A project never scanned is scanned first. The answer comes at once; follow the run on '
      + '`/api/events` or `GET /api/runs/:id`. At most `run_concurrency` runs at once (setting, default 1; '
      + 'the rest queue), each stopped after `run_deadline_seconds` (setting, default 900).',
    body: 'RunInput',
    responses: {
      202: ok('Started (or queued)', 'Run'),
      400: err(
        'Bad input',
        'Give either files or failed, not both',
        'failed must be a boolean',
        'files must be a non-empty array of at most 10000 file paths (strings)',
        'Not a test file of this project (as the last scan listed them): ...',
        INVALID_ID,
      ),
      404: err('No such project', NOT_FOUND),
      409: err(
        'Cannot run now or at all',
        'A run is already in progress for this project',
        'No runnable test command: ...',
        'No test file of this project failed in its last run: nothing to re-run',
        'None of the files asked for is a test file of a runnable test command of this project',
      ),
    },
  },
  'GET /api/projects/:id/runs': {
    summary: 'A project\'s runs, newest first, paged',
    query: {
      limit: 'Runs per page, 1 to 100 (default 20).',
      before: 'A run id: only older runs (the `next` of the previous page).',
    },
    responses: {
      200: ok('One page', 'RunPage'),
      400: err('Bad input', 'limit must be an integer from 1 to 100', 'Invalid run ID', INVALID_ID),
      404: err('No such project', NOT_FOUND),
    },
  },
  'GET /api/runs/:id': {
    summary: 'One run, with its files, steps and output',
    responses: {
      200: ok('The run', 'Run'),
      400: err('Bad id', 'Invalid run ID'),
      404: err('No such run', 'Run not found'),
    },
  },
  'DELETE /api/runs/:id': {
    summary: 'Cancel a queued or running run',
    description: 'Its process groups get SIGTERM, then SIGKILL after 2 s; the answer comes once they are '
      + 'gone.',
    responses: {
      200: ok('The run, `canceled`', 'Run'),
      400: err('Bad id', 'Invalid run ID'),
      404: err('No such run', 'Run not found'),
      409: err('Already over', 'This run has already finished'),
    },
  },
  'GET /api/export': {
    summary: 'The registry as a document another projdex can import: projects (name, path, description, '
      + 'framework, tags) and settings',
    description: 'Ids, scans and git state are left out: they belong to this machine. `projdex export > '
      + 'file.json` saves it.',
    responses: { 200: ok('The document', 'RegistryExport') },
  },
  'POST /api/import': {
    summary: 'Merge an exported registry into this one, by path',
    description: 'Every field is checked before anything is written; then, in one transaction, a path '
      + 'registered here takes the imported name, description, framework and tags, a new path is '
      + 'registered, and settings are written over keys of the same name. A path that is not a directory '
      + 'on this machine is reported in `missing`, not registered. Nothing is scanned.',
    body: 'RegistryExport',
    responses: {
      200: ok('What the import did', 'ImportAnswer'),
      400: err(
        'Bad document; nothing was changed',
        'format must be "projdex-registry" (the output of GET /api/export)',
        'version must be 1',
        'projects[0].name must be a non-empty string',
        'projects[0].tags must be an array of non-empty strings',
        'settings must be an object of strings',
      ),
    },
  },
  'POST /api/projects/:id/processes': {
    summary: 'Start one of the project\'s scripts in the background',
    description: 'Runs a `package.json` script (its text through `/bin/sh -c`, the project\'s '
      + '`node_modules/.bin` first on PATH), a Procfile process (`/bin/sh -c`), a Makefile target (`make '
      + 'TARGET`) or a compose service, named `compose:SERVICE` (`docker compose -f FILE up --timeout 3 '
      + 'SERVICE`, or `docker-compose` where only that is installed; FILE is the root\'s '
      + '`compose.yaml`/`compose.yml`/`docker-compose.yaml`/`docker-compose.yml` or another compose file '
      + 'the last scan took ports from, the first that defines the service), read from the project\'s '
      + 'files now; without `script`, `dev`, else `start`, else the Procfile\'s `web`. It runs in the '
      + 'project\'s directory, in its own process group, with the server\'s environment minus `PROJDEX_*`; '
      + 'stdout and stderr go to one log. It stops with the server unless `keep`. When a port the script '
      + 'declares (the last scan\'s rows for that script, else the project\'s ports without a script; for '
      + 'a compose service, its published host ports) is held now by any process, the answer is 409 naming '
      + 'it, unless `force`.',
    body: 'ProcessStart',
    responses: {
      202: ok('Started (or `failed` at once: `note` says why)', 'Process'),
      400: err(
        'Bad input',
        INVALID_ID,
        'script must be a non-empty string of at most 256 characters',
        'keep must be a boolean',
        'force must be a boolean',
      ),
      404: err(
        'No such project or script',
        NOT_FOUND,
        'No script "NAME" in the project\'s package.json, Procfile, Makefile or compose files: it has '
          + 'dev, start, compose:web',
        'The project has no dev or start script and no Procfile web process: name a script',
      ),
      422: err(
        'A compose service, and no Docker to run it',
        'Cannot start compose service "web": no docker or docker-compose executable is on the server\'s '
          + 'PATH (a compose service runs in its image, through Docker)',
      ),
      409: {
        description: 'A declared port is held now; `holder` names the process: `Port N is already held by '
          + 'pid P (COMMAND), a process of project #ID NAME: stop it first, or start with "force": true`',
        body: 'PortHeld',
      },
    },
  },
  'GET /api/processes': {
    summary: 'Every script started by projdex on this data dir, by id (ended ones included)',
    responses: { 200: ok('The processes', 'Process[]') },
  },
  'GET /api/processes/:id': {
    summary: 'One started script, with the last 1 MiB of its output',
    responses: {
      200: ok('The process', 'ProcessDetail'),
      400: err('Bad id', 'Invalid process ID'),
      404: err('No such process', 'Process not found'),
    },
  },
  'DELETE /api/processes/:id': {
    summary: 'Stop a started script and everything it started: SIGTERM to its process group, SIGKILL after '
      + '5 s',
    description: 'Answers once the group is gone. A process that already ended is answered as it is.',
    responses: {
      200: ok('The process, `stopped`', 'Process'),
      400: err('Bad id', 'Invalid process ID'),
      404: err('No such process', 'Process not found'),
    },
  },
};

/** Shared errors of every route, from the request boundary. */
const COMMON: Readonly<Record<number, ResponseDoc>> = {
  401: err('A token is required (non-loopback binds) and was missing or wrong', 'Missing or invalid token'),
  403: err(
    'Refused at the boundary',
    'Host not allowed',
    'Cross-site request refused',
    'Origin not allowed: start projdex with --allowed-origin ORIGIN to allow it',
  ),
  405: err('Known path, other method; `Allow` lists the methods', 'Method not allowed'),
  413: err('Body over 1 MiB', 'Request body too large'),
  415: err('A body that is not application/json', 'Content-Type must be application/json'),
};

function schemaOf(body: string | Schema): Schema {
  if (typeof body !== 'string') return body;
  const name = body.replace(/\[\]$/, '');
  const one = { $ref: `#/components/schemas/${name}` };
  return body.endsWith('[]') ? { type: 'array', items: one } : one;
}

/** Builds the OpenAPI 3.1 document of `routes` (the live table), from ROUTE_DOCS. */
export function openApiDocument(
  routes: ReadonlyArray<Pick<Route<unknown>, 'method' | 'path'>>,
  version: string,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, path } of routes) {
    const doc = ROUTE_DOCS[`${method} ${path}`];
    if (!doc) throw new Error(`No API doc for ${method} ${path}`);
    const params = [...path.matchAll(/:(\w+)/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: name === 'id' ? { type: 'string', pattern: '^[1-9][0-9]*$' } : { type: 'string' },
    }));
    for (const [name, description] of Object.entries(doc.query ?? {})) {
      params.push({ name, in: 'query', required: false, schema: { type: 'string' }, description } as never);
    }
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries({ ...doc.responses, ...(path === '/health' ? {} : COMMON) })) {
      const type = r.type ?? 'application/json; charset=utf-8';
      responses[status] = {
        description: r.errors
          ? `${r.description}: ${r.errors.map((e) => `\`${e}\``).join(', ')}`
          : r.description,
        ...(r.body || r.type ? { content: { [type]: r.body ? { schema: schemaOf(r.body) } : {} } } : {}),
      };
    }
    const openApiPath = path.replace(/:(\w+)/g, '{$1}');
    paths[openApiPath] ??= {};
    paths[openApiPath][method.toLowerCase()] = {
      summary: doc.summary,
      ...(doc.description ? { description: doc.description } : {}),
      ...(params.length ? { parameters: params } : {}),
      ...(doc.body ? {
        requestBody: {
          required: doc.body !== 'ProjectUpdate' && doc.body !== 'RunInput' && doc.body !== 'ProcessStart',
          content: { 'application/json': { schema: BODIES[doc.body] } },
        },
      } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'projdex',
      version,
      description: 'A local registry of projects and a scanner of their test files and ports. '
        + 'See docs/api.md.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    components: {
      schemas: SCHEMAS,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'Required when the server was started with a token (always on a non-loopback host).',
        },
      },
    },
    security: [{}, { bearer: [] }],
    paths,
  };
}
