import { join } from 'node:path';
import { ensureRegularFile, liveServer, prepareDataDir } from '../server/datadir.ts';
import { startServer } from '../server/server.ts';

/** A failure the CLI prints as one `ERROR:` line; `exitCode` 1 unless said otherwise. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

export interface Answer { readonly status: number; readonly body: any }

export interface Client {
  /** The server's URL; `remote` is false when the CLI runs a private one on the data dir itself. */
  readonly url: string;
  readonly remote: boolean;
  /** Headers every request carries (the token's), for requests made outside `request`, e.g. a stream. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Sends a request; an error status becomes a CliError with the server's `error` text, unless `accept`
   * lists it.
   */
  request(method: string, path: string, body?: unknown, accept?: readonly number[]): Promise<Answer>;
  close(): Promise<void>;
}

/**
 * Talks to the server that `dataDir`'s server.json names, or, when none runs, to a private server on
 * port 0 over the same database (no server.json, closed after the command): one code path, the real API.
 */
export async function connect(dataDir: string, token: string | undefined): Promise<Client> {
  prepareDataDir(dataDir);
  const live = await liveServer(dataDir);
  let url: string;
  let close = async (): Promise<void> => {};
  if (live) {
    url = live.url;
    token ??= live.token;
  } else {
    const db = join(dataDir, 'projdex.db');
    ensureRegularFile(db);
    let running;
    try {
      running = await startServer({ port: 0, db, logger: { error() {} } });
    } catch (error) {
      // As for `serve`: a store that cannot open (a damaged or unwritable database) says so in one sentence.
      const message = error instanceof Error ? error.message : String(error);
      throw new CliError(message.includes(dataDir) ? message
        : `Cannot open the database in the data dir ${dataDir}: ${message}`);
    }
    url = running.url;
    token = undefined;
    close = running.close;
  }
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  return {
    url,
    remote: live !== undefined,
    headers,
    async request(method, path, body, accept = []) {
      const init: RequestInit = { method, headers: { ...headers } };
      if (body !== undefined) {
        init.body = JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] = 'application/json';
      }
      let res: Response;
      try {
        res = await fetch(`${url}${path}`, init);
      } catch (error) {
        throw new CliError(`Cannot reach the projdex server at ${url}: ${(error as Error).message}`);
      }
      const text = await res.text();
      const parsed: unknown = text === '' ? undefined : JSON.parse(text);
      if (res.status >= 400 && !accept.includes(res.status)) {
        throw new CliError((parsed as { error?: string } | undefined)?.error ?? `HTTP ${res.status}`);
      }
      return { status: res.status, body: parsed };
    },
    close,
  };
}
