/**
 * Errors as data: an error that carries its HTTP answer (status, the `error` text clients see, a code for
 * logs and tests). It lives below the service and HTTP alike, so the core can refuse with an answer
 * without knowing about requests.
 */
/** An error that carries its HTTP answer. Thrown (or returned) by handlers; rendered by one `onError`. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  /** Extra top-level fields of the JSON body (e.g. `project` on the duplicate-path 409). */
  readonly body?: Readonly<Record<string, unknown>>;
  /** Extra response headers (e.g. `Allow` on a 405). */
  readonly headers?: Readonly<Record<string, string>>;

  constructor(status: number, code: string, message: string, options: { cause?: unknown; body?: Record<string, unknown>; headers?: Record<string, string> } = {}) {
    super(message, { cause: options.cause });
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    if (options.body) this.body = options.body;
    if (options.headers) this.headers = options.headers;
  }
}

/**
 * Creates an `HttpError`; `message` is the exact `error` text clients see.
 *
 * @example
 * throw httpError(404, 'PROJECT_NOT_FOUND', 'Project not found');
 */
export function httpError(status: number, code: string, message: string, options?: ConstructorParameters<typeof HttpError>[3]): HttpError {
  return new HttpError(status, code, message, options);
}
