/**
 * Linux: the TCP sockets listening now, and which processes hold them. `/proc/net/tcp` and `/proc/net/tcp6`
 * list sockets by inode; each process's `/proc/PID/fd/*` links name the inodes it holds (`socket:[123]`).
 * Only processes this user may inspect are seen: a socket held by another user's process is listed
 * without a holder. The walk over processes and descriptors is bounded.
 */
import { promises as fsp } from 'node:fs';
import type { ListeningSocket, LiveLimits } from './types.ts';

/** State `0A` in /proc/net/tcp*: LISTEN. */
const LISTEN = '0A';

/** A hex address of /proc/net/tcp* (32-bit words in host order, little-endian here) as text. */
export function hexAddress(hex: string): string {
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const chunk = hex.slice(word, word + 8);
    for (let i = 6; i >= 0; i -= 2) bytes.push(parseInt(chunk.slice(i, i + 2), 16));
  }
  if (bytes.length === 4) return bytes.join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16));
  // The URL parser writes IPv6 in its shortest form (`::1`, `::ffff:7f00:1`).
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

/** Listening sockets of one /proc/net/tcp* file: inode -> address and port. */
export function parseProcNet(text: string): Array<{ inode: string; address: string; port: number }> {
  const out: Array<{ inode: string; address: string; port: number }> = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10 || fields[3] !== LISTEN) continue;
    const [hexAddr, hexPort] = fields[1]!.split(':');
    const inode = fields[9]!;
    if (!hexAddr || !hexPort || inode === '0') continue;
    out.push({ inode, address: hexAddress(hexAddr), port: parseInt(hexPort, 16) });
  }
  return out;
}

async function readSmall(file: string, max = 4096): Promise<string | undefined> {
  try {
    const handle = await fsp.open(file, 'r');
    try {
      const buffer = Buffer.alloc(max);
      const { bytesRead } = await handle.read(buffer, 0, max, 0);
      return buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/** A process's command line (arguments joined by spaces, 4 KiB at most) and working directory. */
async function describe(pid: number): Promise<{ command: string | null; cwd: string | null }> {
  const raw = await readSmall(`/proc/${pid}/cmdline`);
  const command = raw ? raw.replace(/\0+$/, '').split('\0').join(' ') : null;
  const cwd = await fsp.readlink(`/proc/${pid}/cwd`).catch(() => null);
  return { command, cwd };
}

/**
 * Every TCP socket listening now, with its holder where this user can see it. `notes` say what was left out
 * (a budget reached, processes that could not be read). Rejects (`NO_PROCFS`) when neither listing is readable.
 */
export async function linuxListening(limits: LiveLimits = {}): Promise<{ sockets: ListeningSocket[]; notes: string[] }> {
  const { maxProcesses = 4096, maxDescriptors = 100_000, proc = '/proc' } = limits;
  const byInode = new Map<string, Array<{ address: string; port: number }>>();
  let readable = 0;
  for (const file of ['tcp', 'tcp6']) {
    const text = await fsp.readFile(`${proc}/net/${file}`, 'utf8').then((t) => { readable++; return t; }, () => '');
    for (const s of parseProcNet(text)) {
      const list = byInode.get(s.inode) ?? [];
      list.push({ address: s.address, port: s.port });
      byInode.set(s.inode, list);
    }
  }
  // No procfs (not Linux, or not mounted): an empty list would say "nothing listens", which is not known.
  if (readable === 0) throw Object.assign(new Error(`${proc}/net/tcp cannot be read`), { code: 'NO_PROCFS' });
  const holders = new Map<string, number>();
  const notes: string[] = [];
  const pids = (await fsp.readdir(proc).catch(() => [] as string[])).filter((name) => /^\d+$/.test(name)).map(Number).sort((a, b) => a - b);
  let descriptors = 0;
  let processes = 0;
  for (const pid of pids) {
    if (holders.size === byInode.size) break;
    if (processes >= maxProcesses || descriptors >= maxDescriptors) {
      notes.push(`stopped looking for holders after ${processes} processes and ${descriptors} descriptors (the budget)`);
      break;
    }
    processes++;
    const fds = await fsp.readdir(`${proc}/${pid}/fd`).catch(() => undefined);
    if (!fds) continue;
    descriptors += fds.length;
    const links = await Promise.all(fds.map((fd) => fsp.readlink(`${proc}/${pid}/fd/${fd}`).catch(() => '')));
    for (const link of links) {
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode && byInode.has(inode) && !holders.has(inode)) holders.set(inode, pid);
    }
  }
  const described = new Map<number, Promise<{ command: string | null; cwd: string | null }>>();
  const sockets: ListeningSocket[] = [];
  for (const [inode, list] of byInode) {
    const pid = holders.get(inode) ?? null;
    if (pid !== null && !described.has(pid)) described.set(pid, describe(pid));
    const about = pid === null ? { command: null, cwd: null } : await described.get(pid)!;
    for (const { address, port } of list) sockets.push({ port, address, pid, ...about });
  }
  return { sockets: sockets.sort((a, b) => a.port - b.port || a.address.localeCompare(b.address)), notes };
}
