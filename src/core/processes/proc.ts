/** Process groups and identities: enough to stop a whole group and to know a pid still names the same process. */
import { readFileSync } from 'node:fs';

/**
 * Linux: the start time of `pid` (field 22 of /proc/PID/stat, in clock ticks since boot), which tells a pid
 * reused by another process from the one recorded; null elsewhere or when the process is gone.
 */
export function procStart(pid: number, proc = '/proc'): string | null {
  try {
    const stat = readFileSync(`${proc}/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** True while `pid` exists (a zombie counts) and, when `start` is known, is still the process that had it. */
export function sameProcess(pid: number, start: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return start === null || procStart(pid) === start;
}

/** True while any process of the group `pgid` exists. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Sends `signal` to every process of the group; false when the group is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** The environment a started script gets: projdex's own, without its PROJDEX_* settings (the token among them). */
export function scriptEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('PROJDEX_')));
}
