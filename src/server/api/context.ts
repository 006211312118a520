import type { IncomingMessage, ServerResponse } from 'node:http';

/** What every handler receives. Its return value is the response: data -> 200 JSON, null -> 204. */
export interface Context {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Decoded path parameters (null prototype). */
  readonly params: Readonly<Record<string, string>>;
  /** Decoded query parameters (null prototype; last value wins). */
  readonly query: Readonly<Record<string, string>>;
  /** Headers the boundary decided for this response (CORS); a handler that writes `res` itself adds them. */
  readonly headers: Readonly<Record<string, string>>;
  /** Reads and validates the JSON body once; later calls return the same object. */
  body(): Promise<Record<string, unknown>>;
}

export type Handler = (ctx: Context) => unknown;
