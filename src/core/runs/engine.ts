/**
 * Test runs: started only on request, one at a time per project, at most `concurrency` at once (the rest
 * queue), each step in its own process group, ended as a group on cancel, deadline or shutdown.
 */
import type { Events } from '../events.ts';
import type { Scanner } from '../scanner.ts';
import type { Store } from '../store/store.ts';
import { openRunsStore } from '../store/runs.ts';
import { httpError } from '../errors.ts';
import type { Project } from '../types.ts';
import { planRun, type Step } from './plan.ts';
import type { StepProcess } from './process.ts';
import { fileResults } from './results.ts';
import { runStep } from './step.ts';
import { createRunOutput } from './output.ts';
import type { FileResult, RunRecord, RunStatus, StepRecord } from './types.ts';

/** Settings read when a run starts (`PUT /api/settings/:key`). */
export const RUN_SETTINGS = { concurrency: 'run_concurrency', deadline: 'run_deadline_seconds' } as const;

export interface RunsOptions {
  readonly store: Store;
  readonly scanner: Scanner;
  readonly events?: Events;
  /** Environment the steps start from (projdex's own variables are removed). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Values never passed to a step (the API token). */
  readonly secrets?: readonly string[];
  /** Per-run deadline in ms; overrides the `run_deadline_seconds` setting (default 15 minutes). */
  readonly deadlineMs?: number;
  /** Runs at once; overrides the `run_concurrency` setting (default 1). */
  readonly concurrency?: number;
  /** Output events are sent at most this often. @default 100 */
  readonly outputEveryMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

export interface RunRequest {
  /** Test files to run, relative to the project; undefined runs every step. */
  readonly files?: readonly string[];
  /** Only the files whose last status is `failed`. */
  readonly failed?: boolean;
}

interface Active {
  readonly id: number;
  readonly project: Project;
  readonly steps: Step[];
  /** Set when the run is stopped before its end: the status it ends with, and why. */
  end: { status: 'canceled' | 'error'; reason: string } | null;
  processes: Set<StepProcess>;
  done: Promise<void>;
  release?: () => void;
  /** While it runs: what a read of the record shows before it is written at the end. */
  live?: { output: () => string; files: ReadonlyMap<string, FileResult>; steps: readonly StepRecord[] };
  /** True once it holds one of the `concurrency` slots. */
  slot?: boolean;
}

export function createRuns(options: RunsOptions) {
  const { store, scanner, events, env = process.env, secrets = [], outputEveryMs = 100, now = Date.now } = options;
  const runs = openRunsStore(store, { now });
  const active = new Map<number, Active>();
  const byProject = new Map<number, number>();
  const waiting: Active[] = [];
  let running = 0;
  let closed = false;
  // Runs a stopped server left behind never finished: say so instead of showing them running forever.
  runs.failUnfinished('the server stopped while this run was in progress');
  const killAll = (): void => { for (const run of active.values()) for (const p of run.processes) p.killNow(); };
  process.on('exit', killAll);

  const setting = (key: string, fallback: number): number => {
    const value = Number(store.getSetting(key));
    return Number.isFinite(value) && value > 0 ? value : fallback;
  };
  const limit = (): number => options.concurrency ?? Math.floor(setting(RUN_SETTINGS.concurrency, 1));
  const deadline = (): number => options.deadlineMs ?? setting(RUN_SETTINGS.deadline, 15 * 60) * 1000;

  const pump = (): void => {
    while (waiting.length > 0 && running < limit()) {
      const run = waiting.shift()!;
      running++;
      run.slot = true;
      run.release?.();
    }
  };

  const execute = async (run: Active): Promise<void> => {
    await new Promise<void>((resolve) => { run.release = resolve; pump(); });
    if (run.end) return finish(run, run.end.status, null, [], [], '', run.end.reason);
    // Writes wait (asynchronously) while a big save's last transaction holds the lock: see store.write.
    await store.write(() => runs.startRun(run.id));
    events?.emit('run.started', { id: run.id, project_id: run.project.id, name: run.project.name });
    const output = createRunOutput({ events, id: run.id, projectId: run.project.id, everyMs: outputEveryMs });
    const onOutput = output.write;
    const timer = setTimeout(() => stop(run, 'error', `the run passed its deadline of ${Math.round(deadline() / 1000)} s and was stopped`), deadline());
    const files = new Map<string, FileResult>();
    const steps: StepRecord[] = [];
    run.live = { output: output.text, files, steps };
    let exitCode: number | null = 0;
    let startFailed = false;
    try {
      for (const step of run.steps) {
        if (run.end) break;
        const result = await runStep(step, {
          root: run.project.path, env, secrets, onOutput,
          onProcess: (p) => { run.processes.add(p); if (run.end) p.kill(); void p.done.then(() => run.processes.delete(p)); },
        });
        steps.push(result.record);
        startFailed ||= result.failedToStart;
        if (exitCode === 0 && result.record.exit_code !== 0) exitCode = result.record.exit_code;
        for (const file of fileResults(run.project.path, result.outcomes)) {
          files.set(file.file_path, file);
          events?.emit('run.file', { id: run.id, project_id: run.project.id, file });
        }
      }
    } catch (error) {
      run.end ??= { status: 'error', reason: `the run failed: ${(error as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
    const text = output.end();
    const list = [...files.values()].sort((a, b) => a.file_path.localeCompare(b.file_path));
    const status: RunStatus = run.end ? run.end.status
      : startFailed ? 'error' : exitCode !== 0 || list.some((f) => f.status === 'failed') ? 'failed' : 'passed';
    const reason = run.end?.reason ?? (startFailed ? 'a step could not start (see its notes)' : null);
    // Files a stopped run reported before it stopped are kept: their results are real.
    await finish(run, status, run.end ? null : exitCode, list, steps, text, reason);
  };

  const finish = async (run: Active, status: RunStatus, exitCode: number | null, files: FileResult[], steps: StepRecord[],
    output: string, reason: string | null): Promise<void> => {
    const record = await store.write(() => runs.finishRun(run.id, { status, exit_code: exitCode, files, steps, output, reason }));
    active.delete(run.id);
    if (byProject.get(run.project.id) === run.id) byProject.delete(run.project.id);
    events?.emit('run.finished', {
      id: run.id, project_id: run.project.id, status, counts: record?.counts ?? { passed: 0, failed: 0, skipped: 0 },
      exit_code: exitCode, reason, finished_at: record?.finished_at ?? null,
    });
  };

  const stop = (run: Active, status: 'canceled' | 'error', reason: string): void => {
    if (run.end) return;
    run.end = { status, reason };
    for (const p of run.processes) p.kill();
    // A queued run leaves the queue at once.
    const at = waiting.indexOf(run);
    if (at !== -1) { waiting.splice(at, 1); run.release?.(); }
  };

  // A project unregistered while its tests run: its run stops (nothing would record its results).
  const offDeleted = events?.subscribe((event) => {
    if (event.type !== 'project.deleted') return;
    const run = active.get(byProject.get(Number(event.data.id)) ?? 0);
    if (run) stop(run, 'canceled', 'the project was deleted');
  });

  return {
    /**
     * Starts a run of the project's tests (scanning it first if it was never scanned) and answers its
     * record at once; the run goes on in the background. Rejects with 409 when one already runs for the
     * project or nothing can run.
     */
    async start(project: Project, request: RunRequest = {}): Promise<RunRecord> {
      if (closed) throw httpError(503, 'SHUTTING_DOWN', 'The server is shutting down');
      if (byProject.has(project.id)) throw httpError(409, 'RUN_IN_PROGRESS', 'A run is already in progress for this project');
      // Held while the project is scanned and planned, so a second request meanwhile is refused too.
      byProject.set(project.id, 0);
      let run: Active;
      let record: RunRecord;
      try {
        const scanned = project.last_scanned === null ? (await scanner.scanProject(project)).project : project;
        const tests = store.listTests(project.id);
        let files = request.files;
        if (request.failed) {
          files = tests.filter((t) => t.status === 'failed').map((t) => t.file_path);
          if (files.length === 0) throw httpError(409, 'NOTHING_FAILED', 'No test file of this project failed in its last run: nothing to re-run');
        }
        const plan = planRun(scanned.path, store.getScanSummary(project.id).runs, tests, files ? { files } : {});
        if ('error' in plan) throw httpError(409, 'NOT_RUNNABLE', plan.error);
        if (closed) throw httpError(503, 'SHUTTING_DOWN', 'The server is shutting down');
        record = await store.write(() =>
          runs.createRun(project.id, running < limit() && waiting.length === 0 ? 'running' : 'queued'));
        run = { id: record.id, project: scanned, steps: plan.steps, end: null, processes: new Set(), done: Promise.resolve() };
      } catch (error) {
        byProject.delete(project.id);
        throw error;
      }
      active.set(run.id, run);
      byProject.set(project.id, run.id);
      waiting.push(run);
      run.done = execute(run).catch(async (error: unknown) => {
        // A failure outside the steps (the database refused a write): the run still ends, as an error.
        try {
          await finish(run, 'error', null, [], [], '', `the run failed: ${(error as Error).message}`);
        } catch {
          active.delete(run.id);
          if (byProject.get(run.project.id) === run.id) byProject.delete(run.project.id);
        }
      }).finally(() => { if (run.slot) running--; pump(); });
      return record;
    },
    /** A run; while it runs, with the output, files and steps so far. */
    get(id: number): RunRecord | undefined {
      const record = runs.getRun(id);
      const live = active.get(id)?.live;
      if (!record || !live) return record;
      return { ...record, output: live.output(), steps: [...live.steps],
        files: [...live.files.values()].sort((a, b) => a.file_path.localeCompare(b.file_path)) };
    },
    list: (projectId: number, page: { limit?: number; before?: number } = {}) => runs.listRuns(projectId, page),
    /** Cancels a queued or running run; its processes get SIGTERM, then SIGKILL. Resolves once it has ended. */
    async cancel(id: number): Promise<RunRecord | undefined> {
      const run = active.get(id);
      if (!run) return undefined;
      stop(run, 'canceled', 'canceled on request');
      await run.done;
      return runs.getRun(id);
    },
    /** Whether a run is queued or running (false once it finished). */
    isActive: (id: number): boolean => active.has(id),
    /** Ends every run (recorded `error`: the server stopped) and waits for their processes to be gone. */
    async close(): Promise<void> {
      closed = true;
      offDeleted?.();
      const all = [...active.values()];
      for (const run of all) stop(run, 'error', 'the server stopped while this run was in progress');
      await Promise.all(all.map((r) => r.done));
      process.off('exit', killAll);
    },
  };
}

export type Runs = ReturnType<typeof createRuns>;
