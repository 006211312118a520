import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_PORTS } from './port.ts';
import { startServer } from './server.ts';

/** What `main` may touch of the process: streams and signals (tests pass their own). */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  once(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
}

const OPTIONS = {
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  token: { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'allowed-origin': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

const HELP = `
  Description
    A local registry of your projects and a scanner of their test files and ports, as a JSON API.

  Usage
    $ projdex [options]

  Options
    -p, --port N            Port to listen on; 0 picks any free port  (default first free of 38124..38133)
    --host ADDR             Interface to bind; non-loopback needs a token  (default 127.0.0.1)
    --data-dir DIR          Where the database and server.json live  (default $PROJDEX_HOME or ~/.projdex)
    --token TOKEN           Require "Authorization: Bearer TOKEN"  (default none on loopback; generated otherwise)
    --allowed-host NAME     Also accept this Host header (repeatable)
    --allowed-origin URL    Also allow this browser origin, exactly (repeatable)
    -v, --version           Print the version and exit
    -h, --help              Print this help and exit

  Environment
    PROJDEX_HOME            Data directory when --data-dir is absent
    PROJDEX_HOST, PROJDEX_TOKEN   Defaults of --host and --token
    PROJDEX_PORT_RANGE=A-B  Candidate ports instead of 38124-38133 (--port still wins)

  Examples
    $ npx projdex
    $ projdex --port 0 --data-dir /tmp/projdex
    $ curl http://127.0.0.1:38124/api/projects
`;

/**
 * Runs the CLI: parses `argv`, starts the server, and resolves with the exit code once a signal has
 * closed it (0), or at once on a usage error (2) or a start-up failure (1).
 */
export async function main(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<number> {
  const fail = (message: string, code: number): number => {
    io.stderr.write(`ERROR: ${message}\nRun \`projdex --help\` for more info.\n`);
    return code;
  };
  let values;
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    return fail((error as Error).message, 2);
  }
  if (values.help) {
    io.stdout.write(HELP.slice(1));
    return 0;
  }
  if (values.version) {
    io.stdout.write(`${version()}\n`);
    return 0;
  }
  let ports: readonly number[] = DEFAULT_PORTS;
  // PROJDEX_PORT_RANGE=A-B replaces the default candidates (tests use a range outside the ephemeral ports).
  if (env.PROJDEX_PORT_RANGE) {
    const range = portRange(env.PROJDEX_PORT_RANGE);
    if (!range) return fail(`PROJDEX_PORT_RANGE must be "A-B" with 1 <= A <= B <= 65535, got "${env.PROJDEX_PORT_RANGE}"`, 2);
    ports = range;
  }
  if (values.port !== undefined) {
    if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535) return fail(`--port must be an integer from 0 to 65535, got "${values.port}"`, 2);
    ports = [Number(values.port)];
  }
  // An empty variable counts as unset: `PROJDEX_HOST=` must not mean "every interface".
  const host = values.host || env.PROJDEX_HOST || '127.0.0.1';
  const loopback = ['127.0.0.1', '::1', 'localhost'].includes(host);
  let token = values.token || env.PROJDEX_TOKEN || undefined;
  let generated = false;
  if (!loopback && !token) {
    token = (await import('node:crypto')).randomBytes(32).toString('base64url');
    generated = true;
  }
  const dataDir = resolve(values['data-dir'] ?? env.PROJDEX_HOME ?? join(homedir(), '.projdex'));

  let running;
  try {
    running = await startServer({
      port: ports,
      host,
      dataDir,
      ...(token ? { token } : {}),
      allowedHosts: values['allowed-host'] ?? [],
      allowedOrigins: values['allowed-origin'] ?? [],
    });
  } catch (error) {
    // PortsInUseError and store failures carry a sentence meant for the user.
    return fail(error instanceof Error ? error.message : String(error), 1);
  }
  // Signal handlers go in before the URL is printed: whoever reads the URL may signal at once.
  const stopped = new Promise<void>((done) => {
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      running.close().then(done, (error: unknown) => { io.stderr.write(`ERROR: while closing: ${String(error)}\n`); done(); });
    };
    io.once('SIGINT', stop);
    io.once('SIGTERM', stop);
  });
  io.stdout.write(`projdex listening on ${running.url}\n`);
  io.stdout.write(`data: ${dataDir}\n`);
  if (generated) io.stdout.write(`token: ${token}\n(send it as "Authorization: Bearer <token>"; it is shown only this once)\n`);

  await stopped;
  return 0;
}

/** `"A-B"` as the list A..B, or undefined when malformed, out of 1..65535, reversed or over 1000 ports. */
function portRange(text: string): number[] | undefined {
  const match = /^(\d{1,5})-(\d{1,5})$/.exec(text.trim());
  if (!match) return undefined;
  const [first, last] = [Number(match[1]), Number(match[2])];
  if (first < 1 || last > 65535 || first > last || last - first >= 1000) return undefined;
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
