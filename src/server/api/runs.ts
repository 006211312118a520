/** Handlers of test runs: start (`POST /api/projects/:id/runs`), read, list, cancel. */
import type { Runs } from '../../core/runs/engine.ts';
import type { Store } from '../../core/store/store.ts';
import { httpError } from '../http.ts';
import { parseId } from '../validate.ts';
import type { Context } from './context.ts';

/** Files one request may name. */
const MAX_FILES = 10_000;

export function runHandlers(store: Store, runs: Runs) {
  const project = (raw: string | undefined) =>
    store.getProject(parseId(raw ?? '')) ?? notFound('Project not found');
  const runId = (raw: string | undefined): number => {
    if (!/^[1-9]\d{0,15}$/.test(raw ?? '') || !Number.isSafeInteger(Number(raw))) {
      throw httpError(400, 'INVALID_RUN_ID', 'Invalid run ID');
    }
    return Number(raw);
  };
  return {
    /** Body optional: `{ "files": [...] }` or `{ "failed": true }`. Answers 202 with the run's record. */
    async start({ params, res, body }: Context) {
      const found = project(params.id);
      const request = runRequest(await body(), new Set(store.listTests(found.id).map((t) => t.file_path)));
      const record = await runs.start(found, request);
      res.statusCode = 202;
      return record;
    },
    get: ({ params }: Context) => runs.get(runId(params.id)) ?? notFound('Run not found'),
    /** Newest first; `?limit=` (1..100, default 20) and `?before=<run id>` for the next page. */
    list({ params, query }: Context) {
      const { id } = project(params.id);
      const limit = query.limit === undefined ? 20 : Number(query.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
        throw httpError(400, 'INVALID_QUERY', 'limit must be an integer from 1 to 100');
      }
      const before = query.before === undefined ? undefined : runId(query.before);
      const page = runs.list(id, { limit, ...(before === undefined ? {} : { before }) });
      const last = page.runs.at(-1);
      return {
        runs: page.runs,
        total: page.total,
        next: page.runs.length === limit && last ? last.id : null,
      };
    },
    /** Cancels a queued or running run; answers its record once its processes are gone. */
    async cancel({ params }: Context) {
      const id = runId(params.id);
      if (!runs.get(id)) notFound('Run not found');
      if (!runs.isActive(id)) throw httpError(409, 'RUN_FINISHED', 'This run has already finished');
      return (await runs.cancel(id)) ?? runs.get(id);
    },
  };
}

function runRequest(
  body: Record<string, unknown>,
  known: ReadonlySet<string>,
): { files?: string[]; failed?: boolean } {
  const { files, failed } = body;
  if (files !== undefined && failed !== undefined) {
    throw httpError(400, 'INVALID_BODY', 'Give either files or failed, not both');
  }
  if (failed !== undefined) {
    if (typeof failed !== 'boolean') throw httpError(400, 'INVALID_BODY', 'failed must be a boolean');
    return failed ? { failed } : {};
  }
  if (files === undefined) return {};
  if (
    !Array.isArray(files) || files.length === 0 || files.length > MAX_FILES
    || !files.every((f) => typeof f === 'string')
  ) {
    throw httpError(400, 'INVALID_BODY',
      `files must be a non-empty array of at most ${MAX_FILES} file paths (strings)`);
  }
  const unknown = files.filter((f) => !known.has(f));
  if (unknown.length > 0) {
    throw httpError(400, 'UNKNOWN_FILE', 'Not a test file of this project (as the last scan listed them): '
      + `${unknown.slice(0, 3).join(', ')}`);
  }
  return { files: [...new Set(files)] };
}

function notFound(message: string): never {
  throw httpError(404, message === 'Run not found' ? 'RUN_NOT_FOUND' : 'PROJECT_NOT_FOUND', message);
}
