import type { ProcessInfo } from '../core/processes/manager.ts';
import type { LiveReading } from '../core/live/live-ports.ts';
import type { Project } from '../core/types.ts';
import { CliError, type Client } from './client.ts';
import { table } from './commands.ts';
import { findProject } from './project-ref.ts';
import type { CliIo, Values } from './types.ts';

interface Out { readonly io: CliIo; readonly values: Values }

const POLL_MS = 300;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `projdex run ID|DIR [SCRIPT]`: starts the script, prints the URL of each port the project's processes open,
 * follows its output until it ends or Ctrl-C, which leaves it running and says how to stop it. Without a
 * server running, the script is started with `keep` (the private server ends with this command).
 */
export async function run(client: Client, { io, values }: Out, positionals: string[]): Promise<number> {
  const project: Project = await findProject(client, positionals[0]);
  const body = {
    ...(positionals[1] ? { script: positionals[1] } : {}),
    keep: !client.remote,
    force: values.force === true,
  };
  const started = (await client.request('POST', `/api/projects/${project.id}/processes`, body))
    .body as ProcessInfo;
  if (values.json) {
    io.stdout.write(`${JSON.stringify(started, null, 2)}\n`);
    return 0;
  }
  io.stdout.write(`started #${started.id} ${started.script} of #${project.id} ${project.name} `
    + `(pid ${started.pid}): ${started.command}\n`);
  let interrupted = false;
  io.once('SIGINT', () => { interrupted = true; });
  let printed = '';
  const announced = new Set<number>();
  for (;;) {
    const now = (await client.request('GET', `/api/processes/${started.id}`))
      .body as ProcessInfo & { output: string };
    // The output is the log's last 1 MiB: print what follows the part already printed.
    const fresh = now.output.startsWith(printed) ? now.output.slice(printed.length) : now.output.slice(-4096);
    if (fresh) io.stdout.write(fresh);
    printed = now.output;
    const live = (await client.request('GET', '/api/ports/live')).body as LiveReading;
    // A compose service's published ports are held by Docker (its proxy or the engine), not by a process in
    // the project's directory: those count when they are the ports the service declares.
    const docker = started.script.startsWith('compose:');
    for (const socket of live.sockets) {
      const ours = (socket.project_id === project.id && socket.pid !== null)
        || (docker && started.ports.includes(socket.port));
      if (!ours || announced.has(socket.port)) continue;
      announced.add(socket.port);
      io.stdout.write(`${socket.port}: `
        + `http://${socket.address.includes(':') ? 'localhost' : '127.0.0.1'}:${socket.port}/\n`);
    }
    if (now.status !== 'running') {
      const code = now.exit_code === null ? '' : ` with code ${now.exit_code}`;
      io.stdout.write(`#${now.id} ${now.status}${code}${now.note ? ` (${now.note})` : ''}\n`);
      return now.status === 'exited' ? 0 : 1;
    }
    if (interrupted) {
      io.stdout.write(`\n#${now.id} keeps running in the background; `
        + `stop it with \`projdex kill ${now.id}\`\n`);
      return 0;
    }
    await sleep(POLL_MS);
  }
}

/** `projdex ps`: every process started through projdex on this data dir. */
export async function ps(client: Client, { io, values }: Out): Promise<number> {
  const list = (await client.request('GET', '/api/processes')).body as ProcessInfo[];
  if (values.json) {
    io.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return 0;
  }
  if (list.length === 0) {
    io.stdout.write('no processes; start one with `projdex run ID [SCRIPT]`\n');
    return 0;
  }
  const when = (s: number): string => new Date(s * 1000).toISOString().slice(0, 16).replace('T', ' ');
  io.stdout.write(`${table([['ID', 'PROJECT', 'SCRIPT', 'STATUS', 'PID', 'STARTED', 'COMMAND'],
    ...list.map((p) => [String(p.id), `#${p.project_id}`, p.script,
      `${p.status}${p.exit_code === null ? '' : ` (${p.exit_code})`}${p.keep ? ', kept' : ''}`,
      p.pid === null ? '-' : String(p.pid), when(p.started_at), p.command.slice(0, 200)])])}\n`);
  return 0;
}

/** `projdex kill PROCESS_ID`: stops the process and everything it started (SIGTERM, SIGKILL after 5 s). */
export async function kill(client: Client, { io, values }: Out, positionals: string[]): Promise<number> {
  const id = positionals[0];
  if (!id || !/^\d+$/.test(id)) {
    throw new CliError('kill needs a process id (see `projdex ps`): projdex kill PROCESS_ID', 2);
  }
  const stopped = (await client.request('DELETE', `/api/processes/${id}`)).body as ProcessInfo;
  if (values.json) io.stdout.write(`${JSON.stringify(stopped, null, 2)}\n`);
  else io.stdout.write(`#${stopped.id} ${stopped.script} (pid ${stopped.pid}): ${stopped.status}\n`);
  return 0;
}
