import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DataDirError, liveServer, pidAlive, readServerInfo } from './server/datadir.ts';
import { CliError, connect } from './cli/client.ts';
import { add } from './cli/add.ts';
import * as commands from './cli/commands.ts';
import * as edit from './cli/edit.ts';
import { open } from './cli/open.ts';
import * as settings from './cli/settings.ts';
import { test as runTests } from './cli/test.ts';
import * as registry from './cli/registry.ts';
import * as processes from './cli/processes.ts';
import { COMMANDS, helpText, version, type Command } from './cli/help.ts';
import { expandHome } from './cli/project-ref.ts';
import { serve } from './cli/serve.ts';
import { tokenOf } from './cli/token.ts';
import { parseArgsMessage } from './cli/usage.ts';
import { OPTIONS, type CliIo, type Env, type Values } from './cli/types.ts';

export type { CliIo } from './cli/types.ts';

/** Options each command accepts besides the shared ones (`--data-dir`, `--token`, `--json`, `--help`). */
const ACCEPTS: Record<Command, readonly string[]> = {
  serve: ['port', 'port-range', 'host', 'allowed-host', 'allowed-origin', 'log', 'watch', 'keep-running'],
  add: ['name', 'all', 'depth', 'force'],
  ls: ['tag', 'framework', 'search'],
  scan: ['all', 'full'],
  tests: [],
  test: ['failed'],
  ports: ['conflicts', 'live'],
  status: [],
  stop: [],
  rm: [],
  edit: ['name', 'description', 'framework'],
  tag: [],
  set: [],
  get: [],
  open: [],
  export: [],
  import: [],
  run: ['force'],
  ps: [],
  kill: [],
};
const SHARED = ['data-dir', 'token', 'token-file', 'json', 'help', 'version'];
const MAX_POSITIONALS: Record<Command, number> = {
  serve: 0, add: 1, ls: 0, scan: 1, tests: 1, ports: 0, status: 0, stop: 0,
  rm: Infinity, edit: 1, tag: Infinity, set: Infinity, get: 1, open: 1, test: Infinity,
  export: 0, import: 1, run: 2, ps: 0, kill: 1,
};

/**
 * Runs the CLI: `projdex [command] [options]`. Resolves with the exit code: 0 done (for `serve`, once a
 * signal closed the server), 1 runtime failure, 2 usage error, 3 `status` with no server running.
 */
export async function main(argv: readonly string[], env: Env, io: CliIo): Promise<number> {
  // Only a usage error (exit 2) points at --help: for a runtime error the sentence itself says what to do.
  const fail = (message: string, code: number): number => {
    io.stderr.write(`ERROR: ${message}\n${code === 2 ? 'Run `projdex --help` for more info.\n' : ''}`);
    return code;
  };
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv], options: OPTIONS, strict: true, allowPositionals: true,
    }));
  } catch (error) {
    return fail(parseArgsMessage(error as Error, Object.keys(OPTIONS)), 2);
  }
  const named = (COMMANDS as readonly string[]).includes(positionals[0] ?? '');
  const command: Command = named ? positionals.shift() as Command : 'serve';
  if (values.help) {
    io.stdout.write(helpText(named ? command : undefined));
    return 0;
  }
  if (values.version) {
    io.stdout.write(`${version()}\n`);
    return 0;
  }
  const extra = Object.keys(values).find((key) => !SHARED.includes(key) && !ACCEPTS[command].includes(key));
  if (extra) return fail(`--${extra} is not an option of \`projdex ${command}\``, 2);
  if (positionals.length > MAX_POSITIONALS[command]) {
    return fail(`Unexpected argument "${positionals[MAX_POSITIONALS[command]]}"`
      + `${command === 'serve' ? `; commands are ${COMMANDS.join(', ')}` : ''}`, 2);
  }
  // `~` expanded as the API does: a quoted '~/x' (or one in PROJDEX_HOME) is no folder named "~".
  const dataDir = resolve(expandHome(values['data-dir'] || env.PROJDEX_HOME || join(homedir(), '.projdex')));
  const out = { io, values };
  try {
    const token = tokenOf(values, env);
    if (command === 'serve') return await serve(values, env, io, dataDir);
    if (command === 'status') return await status(out, dataDir);
    if (command === 'stop') return await stop(out, dataDir);
    const client = await connect(dataDir, token);
    try {
      if (command === 'add') return await add(client, out, positionals);
      if (command === 'ls') return await commands.ls(client, out);
      if (command === 'scan') return await commands.scan(client, out, positionals);
      if (command === 'tests') return await commands.tests(client, out, positionals);
      if (command === 'rm') return await edit.rm(client, out, positionals);
      if (command === 'edit') return await edit.edit(client, out, positionals);
      if (command === 'tag') return await edit.tag(client, out, positionals);
      if (command === 'set') return await settings.set(client, out, positionals);
      if (command === 'get') return await settings.get(client, out, positionals);
      if (command === 'open') {
        return await open(client, out, positionals, { dataDir, env, tty: io.stdout.isTTY === true });
      }
      if (command === 'test') return await runTests(client, out, positionals);
      if (command === 'export') return await registry.exportRegistry(client, out);
      if (command === 'import') return await registry.importRegistry(client, out, positionals);
      if (command === 'run') return await processes.run(client, out, positionals);
      if (command === 'ps') return await processes.ps(client, out);
      if (command === 'kill') return await processes.kill(client, out, positionals);
      return await commands.ports(client, out);
    } finally {
      await client.close();
    }
  } catch (error) {
    if (error instanceof CliError) return fail(error.message, error.exitCode);
    if (error instanceof DataDirError) return fail(error.message, 1);
    throw error;
  }
}

async function status({ io, values }: { io: CliIo; values: Values }, dataDir: string): Promise<number> {
  const live = await liveServer(dataDir);
  if (values.json) {
    io.stdout.write(`${JSON.stringify({
      running: live !== undefined,
      dataDir,
      ...(live ? { url: live.url, pid: live.pid, port: live.port } : {}),
    }, null, 2)}\n`);
  } else {
    io.stdout.write(live
      ? `projdex is running at ${live.url} (pid ${live.pid}); data: ${dataDir}\n`
      : `projdex is not running; data: ${dataDir}\n`);
  }
  return live ? 0 : 3;
}

/** SIGTERM to the server server.json names, then waits (10 s at most) for it to exit. */
async function stop({ io, values }: { io: CliIo; values: Values }, dataDir: string): Promise<number> {
  const live = await liveServer(dataDir);
  const report = (stopped: boolean, text: string): void => {
    io.stdout.write(values.json
      ? `${JSON.stringify({
        stopped, dataDir, ...(live ? { url: live.url, pid: live.pid } : {}),
      }, null, 2)}\n`
      : `${text}\n`);
  };
  if (!live) {
    report(false, `projdex is not running; data: ${dataDir}`);
    return 0;
  }
  try {
    process.kill(live.pid, 'SIGTERM');
  } catch (error) {
    throw new CliError(`Cannot stop projdex (pid ${live.pid}): ${(error as NodeJS.ErrnoException).code}`);
  }
  const deadline = Date.now() + 10_000;
  while (pidAlive(live.pid) && readServerInfo(dataDir)?.instance === live.instance) {
    if (Date.now() > deadline) throw new CliError(`projdex (pid ${live.pid}) did not stop within 10 s`);
    await new Promise((done) => setTimeout(done, 50));
  }
  report(true, `stopped projdex at ${live.url} (pid ${live.pid})`);
  return 0;
}
