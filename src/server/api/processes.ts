import type { ProcessManager } from '../../core/processes/manager.ts';
import type { Store } from '../../core/store/store.ts';
import { httpError } from '../http.ts';
import { parseId } from '../validate.ts';
import type { Context } from './context.ts';

/** A `:id` of a process, else 400 `Invalid process ID`. */
function processId(raw: string | undefined): number {
  const id = /^[1-9][0-9]{0,15}$/.test(raw ?? '') ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) throw httpError(400, 'INVALID_ID', 'Invalid process ID');
  return id;
}

/** `{ script?, keep?, force? }` of a start, each type-checked. */
function startRequest(body: Record<string, unknown>): { script?: string; keep: boolean; force: boolean } {
  const { script, keep = false, force = false } = body;
  if (
    script !== undefined
    && (typeof script !== 'string' || script === '' || script.length > 256 || !script.isWellFormed())
  ) {
    throw httpError(400, 'INVALID_FIELD', 'script must be a non-empty string of at most 256 characters');
  }
  if (typeof keep !== 'boolean') throw httpError(400, 'INVALID_FIELD', 'keep must be a boolean');
  if (typeof force !== 'boolean') throw httpError(400, 'INVALID_FIELD', 'force must be a boolean');
  return { ...(script === undefined ? {} : { script }), keep, force };
}

/** Handlers of the background processes: start (202), list, one with its output, stop. */
export function processHandlers(store: Store, processes: ProcessManager) {
  return {
    async start({ params, body, res }: Context) {
      const id = parseId(params.id ?? '');
      const request = startRequest(await body());
      const project = store.getProject(id);
      if (!project) throw httpError(404, 'PROJECT_NOT_FOUND', 'Project not found');
      const started = await processes.start(project, request);
      res.statusCode = 202;
      return started;
    },
    list: () => processes.list(),
    get: ({ params }: Context) => processes.get(processId(params.id)),
    stop: ({ params }: Context) => processes.stop(processId(params.id)),
  };
}
