/**
 * macOS (and other systems with lsof): the TCP sockets listening now, from
 * `lsof -nP -iTCP -sTCP:LISTEN -F pcn` (one field a line: `p` pid, `c` command name, `n` address:port),
 * and the holders' working directories from `lsof -a -d cwd -p PIDS -F pn`. lsof lists only what this user
 * may see.
 */
import { runBounded } from '../run-bounded.ts';
import type { ListeningSocket, LiveLimits } from './types.ts';

interface Field { readonly pid: number; readonly command: string | null; readonly name: string }

/** The `n` fields of `lsof -F` output, each with the process (`p`, `c`) it belongs to. */
export function parseLsofFields(text: string): Field[] {
  const out: Field[] = [];
  let pid = 0;
  let command: string | null = null;
  for (const line of text.split('\n')) {
    const tag = line[0];
    const value = line.slice(1);
    if (tag === 'p') { pid = Number(value); command = null; } else if (tag === 'c') command = value;
    else if (tag === 'n' && pid > 0) out.push({ pid, command, name: value });
  }
  return out;
}

/** `*:3000`, `127.0.0.1:3000`, `[::1]:3000` as address and port. */
export function splitName(name: string): { address: string; port: number } | undefined {
  const match = /^(\*|\[[^\]]+\]|[^:]+):(\d+)$/.exec(name);
  if (!match) return undefined;
  const host = match[1]!;
  return { address: host === '*' ? '*' : host.replace(/^\[|\]$/g, ''), port: Number(match[2]) };
}

/** The listening sockets lsof shows; rejects when lsof is missing (ENOENT) or too slow. */
export async function lsofListening({ timeoutMs = 5000 }: LiveLimits = {}): Promise<{ sockets: ListeningSocket[]; notes: string[] }> {
  const env = { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/bin', LC_ALL: 'C' };
  const listing = await runBounded('lsof', ['-nP', '-iTCP', '-sTCP:LISTEN', '-F', 'pcn'], { env, timeoutMs, what: 'lsof' });
  const fields = parseLsofFields(listing.stdout);
  const notes = listing.capped ? ['lsof printed more than 1 MiB: the rest of its listing was not read'] : [];
  // Unlike /proc, lsof leaves out what it may not inspect instead of listing it without a holder (even as
  // root, a process outside this process namespace).
  notes.push('lsof lists only the processes it may inspect: a port held by another user\'s process, or one '
    + 'outside this process namespace, is not listed');
  const pids = [...new Set(fields.map((f) => f.pid))];
  const cwds = new Map<number, string>();
  if (pids.length > 0) {
    const args = ['-a', '-d', 'cwd', '-p', pids.slice(0, 1000).join(','), '-F', 'pn'];
    const dirs = await runBounded('lsof', args, { env, timeoutMs, what: 'lsof' })
      .catch(() => undefined);
    for (const f of parseLsofFields(dirs?.stdout ?? '')) cwds.set(f.pid, f.name);
  }
  const sockets: ListeningSocket[] = [];
  for (const f of fields) {
    const where = splitName(f.name);
    if (where) sockets.push({ ...where, pid: f.pid, command: f.command, cwd: cwds.get(f.pid) ?? null });
  }
  return { sockets: sockets.sort((a, b) => a.port - b.port), notes };
}
