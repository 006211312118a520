import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { basename } from 'node:path';
import { AlreadyRunningError } from '../server/datadir.ts';
import { DEFAULT_PORTS } from '../server/listen.ts';
import { startServer } from '../server/server.ts';
import { CliError } from './client.ts';
import type { CliIo, Env, Values } from './types.ts';
import { tokenOf } from './token.ts';

const LOOPBACK = ['127.0.0.1', '::1', 'localhost'];
const WILDCARD = ['0.0.0.0', '::'];

/** Candidate ports: `--port`, else `--port-range` / `PROJDEX_PORT_RANGE` (`A-B`), else 38124..38133. */
export function candidatePorts(values: Values, env: Env): readonly number[] {
  // A malformed range is refused even beside --port: a typo in the environment should not wait to bite.
  const [source, range] = values['port-range'] !== undefined ? ['--port-range', values['port-range']]
    : env.PROJDEX_PORT_RANGE ? ['PROJDEX_PORT_RANGE', env.PROJDEX_PORT_RANGE] : [undefined, undefined];
  let ports: readonly number[] = DEFAULT_PORTS;
  if (range !== undefined) {
    const m = /^(\d{1,5})-(\d{1,5})$/.exec(range);
    const [a, b] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
    if (!(a >= 1 && a <= b && b <= 65535 && b - a < 1000)) {
      throw new CliError(`${source} must be A-B with 1 <= A <= B <= 65535 and at most 1000 ports `
        + `(e.g. 38124-38133), got "${range}"`, 2);
    }
    ports = Array.from({ length: b - a + 1 }, (_, i) => a + i);
  }
  if (values.port === undefined) return ports;
  if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535) {
    throw new CliError(`--port must be an integer from 0 to 65535, got "${values.port}"`, 2);
  }
  return [Number(values.port)];
}

/** Runs the server until a signal (or the parent's exit) closes it; resolves with the exit code. */
export async function serve(values: Values, env: Env, io: CliIo, dataDir: string): Promise<number> {
  const ports = candidatePorts(values, env);
  // An empty variable counts as unset: `PROJDEX_HOST=` must not mean "every interface".
  const host = values.host || env.PROJDEX_HOST || '127.0.0.1';
  let token = tokenOf(values, env);
  let generated = false;
  if (!LOOPBACK.includes(host) && !token) {
    token = (await import('node:crypto')).randomBytes(32).toString('base64url');
    generated = true;
  }
  let running;
  try {
    running = await startServer({
      port: ports,
      host,
      dataDir,
      ...(token ? { token } : {}),
      allowedHosts: values['allowed-host'] ?? [],
      allowedOrigins: values['allowed-origin'] ?? [],
      ...(values.watch ? { watch: true } : {}),
    });
  } catch (error) {
    if (error instanceof AlreadyRunningError) {
      io.stdout.write(`${error.message}\n`);
      return 0;
    }
    // PortsInUseError, DataDirError and store failures carry a sentence meant for the user.
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
  if (values.log) {
    running.server.on('request', (req, res) => {
      const started = performance.now();
      res.once('close', () => {
        io.stderr.write(`${new Date().toISOString()} ${req.method} ${req.url} ${res.statusCode} `
          + `${(performance.now() - started).toFixed(1)}ms\n`);
      });
    });
  }
  // Signal handlers go in before the URL is printed: whoever reads the URL may signal at once.
  let stop = (_why?: string): void => {};
  const stopped = new Promise<void>((done) => {
    let stopping = false;
    stop = (why) => {
      if (stopping) return;
      stopping = true;
      if (why) {
        io.stderr.write(`projdex: ${why}; shutting down `
          + '(start it with --keep-running to keep serving after that)\n');
      }
      running.close().then(done, (error: unknown) => {
        io.stderr.write(`ERROR: while closing: ${String(error)}\n`);
        done();
      });
    };
    io.once('SIGINT', () => stop());
    io.once('SIGTERM', () => stop());
  });
  const unwatch = values['keep-running'] || !startedByWrapper(env) ? () => {} : watchParent(io, stop);
  io.stdout.write(`projdex listening on ${running.url}\n`);
  if (WILDCARD.includes(host)) {
    const local = `http://${host === '::' ? '[::1]' : '127.0.0.1'}:${running.port}`;
    io.stdout.write(`  Local:   ${local}\n`);
    for (const address of networkAddresses(host === '::')) {
      io.stdout.write(`  Network: http://${address}:${running.port}\n`);
    }
  }
  io.stdout.write(`data: ${dataDir}\n`);
  if (generated) {
    io.stdout.write(`token: ${token}\n`
      + '(send it as "Authorization: Bearer <token>"; it is shown only this once)\n');
  }
  await stopped;
  unwatch();
  return 0;
}

/**
 * True when a package manager's wrapper started us (npx, npm start, yarn, pnpm: they all set
 * npm_lifecycle_event for the command they run). Only such a wrapper is followed: a shell script that
 * runs `projdex serve > log 2>&1 &` and exits, nohup, setsid or a process manager all mean to leave the
 * server running, and their signals reach it directly.
 */
export function startedByWrapper(env: Env): boolean {
  return Boolean(env.npm_lifecycle_event);
}

/**
 * No orphans: a wrapper (npx, npm start) killed by SIGTERM does not pass the signal on, and its child
 * would keep the port and server.json. When our parent goes away we are re-parented (ppid changes) or
 * our IPC channel closes; either stops the server the same way a signal does. npm runs us through
 * `sh -c`, which outlives a SIGKILLed npm: when the parent is such a shell, its parent is watched too
 * (Linux, through /proc).
 */
function watchParent(io: CliIo, stop: (why: string) => void): () => void {
  const parent = io.ppid;
  const onDisconnect = (): void => stop('the parent process closed its channel');
  io.on?.('disconnect', onDisconnect);
  if (parent === undefined || parent <= 1) return () => io.off?.('disconnect', onDisconnect);
  const grandparent = isShellWrapper(parent) ? parentOf(parent) : undefined;
  const timer = setInterval(() => {
    if (io.ppid !== parent) stop(`the parent process (pid ${parent}) exited`);
    else if (grandparent !== undefined && grandparent > 1 && parentOf(parent) !== grandparent) {
      stop(`the process that started projdex (pid ${grandparent}) exited`);
    }
  }, 500);
  timer.unref();
  return () => {
    clearInterval(timer);
    io.off?.('disconnect', onDisconnect);
  };
}

/** The parent pid of `pid` from /proc (Linux), or undefined. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/** True when `pid` is a `sh -c ...` (or bash, dash, zsh) that exists only to run us. */
function isShellWrapper(pid: number): boolean {
  try {
    const [exe = '', flag] = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return ['sh', 'bash', 'dash', 'zsh'].includes(basename(exe)) && flag === '-c';
  } catch {
    return false;
  }
}

function networkAddresses(ipv6: boolean): string[] {
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.internal) continue;
      if (a.family === 'IPv4') out.push(a.address);
      else if (ipv6 && !a.address.startsWith('fe80')) out.push(`[${a.address}]`);
    }
  }
  return out;
}
