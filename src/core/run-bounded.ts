import { spawn } from 'node:child_process';

/** What a bounded run printed, and how it ended. */
export interface BoundedOutput {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** True when stdout reached the cap and the child was killed: `stdout` is its first part. */
  readonly capped: boolean;
}

export interface BoundedOptions {
  readonly cwd?: string;
  readonly env: NodeJS.ProcessEnv;
  /** @default 5000 */
  readonly timeoutMs?: number;
  /** Most bytes of stdout kept; the child is killed on reaching it. @default 1 MiB */
  readonly maxBytes?: number;
  /** Named in the deadline's message. @default the program */
  readonly what?: string;
}

/**
 * Runs `program` with `args`, no shell, stdin closed. Rejects when it cannot start (ENOENT: not installed)
 * and at the deadline (`code` RUN_TIMEOUT, the child SIGKILLed); resolves with its output otherwise.
 */
export function runBounded(program: string, args: readonly string[], options: BoundedOptions): Promise<BoundedOutput> {
  const { cwd, env, timeoutMs = 5000, maxBytes = 1 << 20, what = program } = options;
  const child = spawn(program, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], shell: false, windowsHide: true });
  const out: Buffer[] = [];
  let size = 0;
  let err = '';
  let capped = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(Object.assign(new Error(`${what} took longer than ${timeoutMs} ms`), { code: 'RUN_TIMEOUT' }));
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      if (capped) return;
      out.push(chunk);
      size += chunk.length;
      if (size >= maxBytes) { capped = true; child.kill('SIGKILL'); }
    });
    child.stderr.on('data', (chunk: Buffer) => { if (err.length < 4096) err += chunk.toString('utf8'); });
    child.once('error', (error) => { clearTimeout(timer); reject(error); });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: err, capped });
    });
  });
}
