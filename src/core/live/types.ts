/** One TCP socket listening now, and what projdex could learn of the process holding it. */
export interface ListeningSocket {
  readonly port: number;
  /** The local address it is bound to (`0.0.0.0`, `::`, `127.0.0.1`, ...). */
  readonly address: string;
  /** The holder; null when it is a process this user cannot inspect (another user's, or the budget ran out). */
  readonly pid: number | null;
  /** Its command line (arguments joined by spaces, cut at 4 KiB); null when unknown. */
  readonly command: string | null;
  /** Its working directory; null when unknown. */
  readonly cwd: string | null;
}

/** Bounds of one look at the machine's sockets. */
export interface LiveLimits {
  /** Processes whose descriptors are read at most. @default 4096 */
  readonly maxProcesses?: number;
  /** Descriptors read at most, over all processes. @default 100000 */
  readonly maxDescriptors?: number;
  /** Where procfs is mounted (Linux). @default '/proc' */
  readonly proc?: string;
  /** Deadline of `lsof` (macOS), in milliseconds. @default 5000 */
  readonly timeoutMs?: number;
}
