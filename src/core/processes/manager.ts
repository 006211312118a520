/**
 * Scripts started in the background, on request only: each in the project's directory, in its own process
 * group (so stopping it stops what it started), with projdex's environment minus its own settings, its output
 * in a log file. They stop with the server, unless started with `keep`: those are recorded by pid and start
 * time, and a restarted server finds them again (and can still stop them) or marks them gone.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Events } from '../events.ts';
import { readLivePorts, type LiveOptions } from '../live/live-ports.ts';
import type { ProcessRow, ProcessStatus } from '../store/processes.ts';
import type { Store } from '../store/store.ts';
import type { Project, ProjectPort } from '../types.ts';
import { httpError } from '../errors.ts';
import { followLog, readTail } from './output.ts';
import { groupAlive, procStart, sameProcess, scriptEnv, signalGroup } from './proc.ts';
import { planScript, withPath, type ScriptPlan } from './scripts.ts';

/** A started script as the API shows it (`log_path` and the recorded start time stay inside). */
export type ProcessInfo = Omit<ProcessRow, 'log_path' | 'proc_start'>;

export interface ProcessManagerOptions {
  readonly store: Store;
  readonly events: Events;
  /** Where log files go. @default a new temp directory, removed on close when no kept process needs it */
  readonly logDir?: string;
  /** Time between SIGTERM and SIGKILL on stop. @default 5000 */
  readonly stopGraceMs?: number;
  /** Interval of output batches and of liveness checks of processes this server did not start. @default 250 */
  readonly pollMs?: number;
  /** The environment scripts start from (PROJDEX_* removed). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** @default Date.now */
  readonly now?: () => number;
  /** How the port check reads live ports. */
  readonly live?: LiveOptions;
}

export interface StartRequest {
  readonly script?: string;
  readonly keep?: boolean;
  readonly force?: boolean;
}

/**
 * The ports a plan declares, from the last scan's listen rows: a compose service's are its own rows of its
 * file (its published host ports); a script's are the rows naming it outside compose files (a service may
 * share a script's name: rows from yaml files, which package.json scripts, Procfiles and Makefiles never
 * are, are left to the service), else the project's rows that name no script.
 */
function declaredPorts(rows: readonly ProjectPort[], plan: ScriptPlan): number[] {
  const { service } = plan;
  const chosen = service
    ? rows.filter((p) => p.config_source === service.file && p.script_name === service.name)
    : rows.filter((p) => p.script_name === plan.script && !/\.ya?ml$/i.test(p.config_source));
  const rowsOf = chosen.length > 0 || service ? chosen : rows.filter((p) => p.script_name === null);
  return [...new Set(rowsOf.map((p) => p.port))];
}

const info = ({ log_path: _log, proc_start: _start, ...rest }: ProcessRow): ProcessInfo => rest;

/**
 * @example
 * const processes = createProcessManager({ store, events });
 * const started = await processes.start(project, { script: 'dev' });
 * await processes.stop(started.id);
 */
export function createProcessManager(options: ProcessManagerOptions) {
  const { store, events, stopGraceMs = 5000, pollMs = 250, env = process.env, now = Date.now } = options;
  let logDir = options.logDir;
  let ownDir = false;
  const followers = new Map<number, ReturnType<typeof followLog>>();
  const stopping = new Set<number>();
  const seconds = (): number => Math.floor(now() / 1000);

  // Writes go through `store.write`: in the order they were asked for, and never blocking this thread while
  // a big save holds the database's write lock.
  const finish = async (id: number, status: ProcessStatus, exitCode: number | null, note: string | null): Promise<void> => {
    const fields = { status: stopping.has(id) ? 'stopped' as const : status, exit_code: exitCode, note, ended_at: seconds() };
    let row: ProcessRow | undefined;
    try {
      row = await store.write(() => store.finishProcess(id, fields));
    } catch { /* the store closed under a late exit: nothing left to record */ }
    if (row) void flush(id).then(() => { followers.delete(id); events.emit('process.exited', { process: info(row) }); });
  };

  const flush = async (id: number): Promise<void> => {
    const text = await followers.get(id)?.next().catch(() => '');
    if (text) events.emit('process.output', { id, text });
  };

  // Processes recorded as running by an earlier server: found again while the same process has the pid.
  const foreign = new Set<number>();
  for (const row of store.runningProcesses()) {
    if (row.pid !== null && sameProcess(row.pid, row.proc_start)) {
      foreign.add(row.id);
      followers.set(row.id, followLog(row.log_path));
    } else {
      const note = 'ended while no projdex server was watching it; its exit code is unknown';
      store.finishProcess(row.id, { status: 'exited', exit_code: null, note, ended_at: seconds() });
    }
  }
  let ticking = false;
  const timer = setInterval(() => {
    if (ticking) return;
    ticking = true;
    void (async () => {
      for (const id of [...followers.keys()]) await flush(id);
      for (const id of foreign) {
        const row = store.getProcess(id);
        if (!row || row.status !== 'running') { foreign.delete(id); continue; }
        if (!sameProcess(row.pid!, row.proc_start)) {
          foreign.delete(id);
          finish(id, 'exited', null, 'its exit code is unknown: it was started by an earlier projdex server');
        }
      }
    })().catch(() => { /* the store closed under a tick: the next close ends the timer */ }).finally(() => { ticking = false; });
  }, pollMs);
  timer.unref();

  /** 409 when a port the script declares is held now by a process (unless `force`). */
  const checkPorts = async (project: Project, ports: readonly number[]): Promise<void> => {
    if (ports.length === 0) return;
    const projects = store.listProjects();
    const { sockets } = await readLivePorts(projects, options.live);
    const held = sockets.find((s) => ports.includes(s.port));
    if (!held) return;
    const name = projects.find((p) => p.id === held.project_id)?.name ?? '';
    const owner = held.project_id === null ? '' : `, a process of project #${held.project_id} ${name}`;
    const command = (held.command ?? 'unknown command').slice(0, 200);
    const who = held.pid === null ? 'a process projdex cannot see' : `pid ${held.pid} (${command})${owner}`;
    throw httpError(409, 'PORT_HELD', `Port ${held.port} is already held by ${who}: stop it first, or start with "force": true`, {
      body: { holder: { port: held.port, pid: held.pid, command: held.command, project_id: held.project_id } },
    });
  };

  /** Waits up to `ms` for the group to be gone. */
  const gone = async (pgid: number, ms: number): Promise<boolean> => {
    const until = performance.now() + ms;
    while (groupAlive(pgid)) {
      if (performance.now() > until) return false;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return true;
  };

  const stop = async (id: number): Promise<ProcessInfo> => {
    const row = store.getProcess(id);
    if (!row) throw httpError(404, 'PROCESS_NOT_FOUND', 'Process not found');
    if (row.status !== 'running' || row.pid === null) return info(row);
    stopping.add(id);
    // A pid that now names another process (the recorded one is gone) is never signalled.
    if (sameProcess(row.pid, row.proc_start) || groupAlive(row.pid)) {
      signalGroup(row.pid, 'SIGTERM');
      if (!await gone(row.pid, stopGraceMs)) {
        signalGroup(row.pid, 'SIGKILL');
        await gone(row.pid, 1000);
      }
    }
    foreign.delete(id);
    await finish(id, 'stopped', null, null);
    return info(store.getProcess(id)!);
  };

  return {
    async start(project: Project, { script, keep = false, force = false }: StartRequest): Promise<ProcessInfo> {
      const recorded = store.listPorts(project.id, 'all').map((p) => p.config_source);
      const plan = await planScript(project.path, script, {
        recordedSources: recorded, searchPath: scriptEnv(env).PATH,
      });
      const ports = declaredPorts(store.listPorts(project.id), plan);
      if (!force) await checkPorts(project, ports);
      if (logDir === undefined) { logDir = mkdtempSync(join(tmpdir(), 'projdex-processes-')); ownDir = true; }
      mkdirSync(logDir, { recursive: true, mode: 0o700 });
      const started = await store.write(() => store.insertProcess({
        project_id: project.id, script: plan.script, command: plan.command, keep, ports, log_path: '', started_at: seconds(),
      }));
      const logPath = join(logDir, `${started.id}.log`);
      const fd = openSync(logPath, 'a', 0o600);
      let child;
      try {
        child = spawn(plan.program, plan.args, {
          cwd: project.path, env: withPath(scriptEnv(env), plan.path), detached: true, stdio: ['ignore', fd, fd], windowsHide: true,
        });
      } finally {
        closeSync(fd);
      }
      child.unref();
      followers.set(started.id, followLog(logPath));
      if (child.pid === undefined) {
        const error = await new Promise<Error>((resolve) => child.once('error', resolve));
        await store.write(() => store.setProcessLog(started.id, logPath));
        await finish(started.id, 'failed', null, `could not start ${plan.program}: ${(error as NodeJS.ErrnoException).code ?? error.message}`);
        return info(store.getProcess(started.id)!);
      }
      const { pid } = child;
      // The exit listener is in place before any await, so an exit at once is not missed; its write queues
      // behind the pid's.
      child.once('exit', (code, signal) => {
        // A stop in progress records `stopped` itself, once the whole group is gone.
        if (!stopping.has(started.id)) void finish(started.id, code === 0 ? 'exited' : 'failed', code, signal ? `ended by ${signal}` : null);
      });
      await store.write(() => { store.setProcessLog(started.id, logPath); store.setProcessPid(started.id, pid, procStart(pid)); });
      const row = store.getProcess(started.id)!;
      events.emit('process.started', { process: info(row) });
      return info(row);
    },
    list: (): ProcessInfo[] => store.listProcesses().map(info),
    /** One process with the last 1 MiB of its output. */
    async get(id: number): Promise<ProcessInfo & { output: string }> {
      const row = store.getProcess(id);
      if (!row) throw httpError(404, 'PROCESS_NOT_FOUND', 'Process not found');
      return { ...info(row), output: row.log_path ? await readTail(row.log_path) : '' };
    },
    stop,
    /** Stops every process not started with `keep` (SIGTERM, SIGKILL after the grace), then the polling. */
    async close(): Promise<void> {
      clearInterval(timer);
      let running: ProcessRow[];
      try {
        running = store.runningProcesses();
      } catch {
        return; // The store was closed first (an embedder's order): nothing can be recorded any more.
      }
      await Promise.all(running.filter((row) => !row.keep).map((row) => stop(row.id).catch(() => undefined)));
      if (ownDir && logDir && running.every((row) => !row.keep)) rmSync(logDir, { recursive: true, force: true });
    },
  };
}

export type ProcessManager = ReturnType<typeof createProcessManager>;
