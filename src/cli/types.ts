/** What `main` may touch of the process: streams, signals and the parent pid (tests pass their own). */
export interface CliIo {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  once(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  /** The parent's pid, read again on each check (a getter on `process`). */
  readonly ppid?: number;
  on?(event: 'disconnect', listener: () => void): unknown;
  off?(event: 'disconnect', listener: () => void): unknown;
}

export type Env = Readonly<Record<string, string | undefined>>;

/** Every option of every command, as `node:util.parseArgs` reads them. */
export const OPTIONS = {
  port: { type: 'string', short: 'p' },
  'port-range': { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'allowed-origin': { type: 'string', multiple: true },
  log: { type: 'boolean' },
  watch: { type: 'boolean' },
  'keep-running': { type: 'boolean' },
  json: { type: 'boolean' },
  name: { type: 'string' },
  description: { type: 'string' },
  force: { type: 'boolean' },
  all: { type: 'boolean' },
  full: { type: 'boolean' },
  depth: { type: 'string' },
  tag: { type: 'string' },
  framework: { type: 'string' },
  search: { type: 'string' },
  conflicts: { type: 'boolean' },
  failed: { type: 'boolean' },
  live: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

export interface Values {
  port?: string;
  'port-range'?: string;
  host?: string;
  'data-dir'?: string;
  token?: string;
  'token-file'?: string;
  'allowed-host'?: string[];
  'allowed-origin'?: string[];
  log?: boolean;
  watch?: boolean;
  'keep-running'?: boolean;
  json?: boolean;
  name?: string;
  description?: string;
  force?: boolean;
  all?: boolean;
  full?: boolean;
  depth?: string;
  tag?: string;
  framework?: string;
  search?: string;
  conflicts?: boolean;
  failed?: boolean;
  live?: boolean;
  help?: boolean;
  version?: boolean;
}
