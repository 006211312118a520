// What the tests of background processes share: a free port, the members of a process group read from
// /proc, and polling for a state with a generous deadline (the machine's speed decides nothing).
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A port free right now: listen on 0, read it, close. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** This process's scan processes: their parent is this process and their entry is the scanner's `process.ts`. */
export function scanProcesses(): number[] {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return parent === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('process.');
    } catch { return false; }
  }).map(Number);
}

/** Pids whose process group is `pgid`, read from /proc/PID/stat (field 5); zombies have ended. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') out.push(Number(name));
    } catch { /* ended meanwhile */ }
  }
  return out;
}

/** Polls `check` until it gives a value (not undefined or false); fails after `ms`. */
export async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
