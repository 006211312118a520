/**
 * One step's process: started detached (its own process group, so a runner's workers, forked files and
 * shells share it) with no stdin, and killed as a group: SIGTERM, a grace period, then SIGKILL, also
 * after the leader exited, so no worker or browser it left behind lives on.
 */
import { spawn } from 'node:child_process';

export interface StepExit {
  /** The exit code, or null when a signal ended it or it never started. */
  readonly code: number | null;
  readonly signal: string | null;
  /** Why it could not start (e.g. the program is not installed). */
  readonly error?: string;
}

export interface StepProcessOptions {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly onStdout: (chunk: Buffer) => void;
  readonly onStderr: (chunk: Buffer) => void;
  /** Between SIGTERM and SIGKILL, for runners to end their own children (Playwright's browsers). @default 2000 */
  readonly graceMs?: number;
}

export interface StepProcess {
  readonly pid: number | undefined;
  /** Resolves when the leader has exited and the group was swept. */
  readonly done: Promise<StepExit>;
  /** Ends the whole group (idempotent); `done` resolves once the leader is gone. */
  kill(): void;
  /** SIGKILL to the group at once, synchronously (process exit). */
  killNow(): void;
}

export function startStep({ argv, cwd, env, onStdout, onStderr, graceMs = 2000 }: StepProcessOptions): StepProcess {
  const child = spawn(argv[0]!, argv.slice(1), { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'], shell: false });
  const pid = child.pid;
  const signalGroup = (signal: NodeJS.Signals): void => {
    if (pid === undefined) return;
    try { process.kill(-pid, signal); } catch { /* ESRCH: the group is already gone */ }
  };
  let timer: NodeJS.Timeout | undefined;
  let killing = false;
  child.stdout.on('data', onStdout);
  child.stderr.on('data', onStderr);
  const done = new Promise<StepExit>((resolve) => {
    let settled = false;
    const finish = (exit: StepExit): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Whatever the leader left in its group (a worker, a server a test started) goes with it.
      signalGroup('SIGKILL');
      resolve(exit);
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      finish({ code: null, signal: null, error: error.code === 'ENOENT' ? `${argv[0]} is not installed (not found on PATH)` : error.message });
    });
    // 'close' (not 'exit'): the pipes are drained, so the output is complete. A process that left the
    // group (setsid) may hold them open: two seconds after the leader's exit, the pipes are let go.
    child.once('close', (code, signal) => finish({ code, signal }));
    child.once('exit', (code, signal) => {
      signalGroup('SIGKILL');
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish({ code, signal });
      }, 2000).unref();
    });
  });
  return {
    pid,
    done,
    kill(): void {
      if (killing) return;
      killing = true;
      signalGroup('SIGTERM');
      timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
      timer.unref();
    },
    killNow: () => signalGroup('SIGKILL'),
  };
}
