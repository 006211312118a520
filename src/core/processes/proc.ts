/** Process groups and identities: enough to stop a whole group and to know a pid still names the same process. */
import { readFileSync } from 'node:fs';

/**
 * Linux: the start time of `pid` (field 22 of /proc/PID/stat, in clock ticks since boot), which tells a pid
 * reused by another process from the one recorded; null elsewhere or when the process is gone.
 */
export function procStart(pid: number, proc = '/proc'): string | null {
  return statFields(pid, proc)?.[19] ?? null;
}

/** Fields 3 and on of /proc/PID/stat (field 3, the state, first); undefined elsewhere or when gone. */
function statFields(pid: number, proc = '/proc'): string[] | undefined {
  try {
    const stat = readFileSync(`${proc}/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * True while `pid` runs and, when `start` is known, is still the process that had it. A zombie has ended
 * (its parent has yet to collect its status): not running.
 */
export function sameProcess(pid: number, start: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const fields = statFields(pid);
  if (fields?.[0] === 'Z') return false;
  return start === null || fields?.[19] === start;
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
