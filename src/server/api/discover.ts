import { basename } from 'node:path';
import { httpError } from '../http.ts';
import { DISCOVER_DEPTH, findRoots } from '../../core/roots.ts';
import type { Events } from '../../core/events.ts';
import type { Store } from '../../core/store/store.ts';
import type { Project } from '../../core/types.ts';
import { resolveProjectPath } from '../validate.ts';
import type { Context } from './context.ts';

/** Deepest `depth` accepted: deeper folders of folders are a walk of the whole disk. */
const MAX_DEPTH = DISCOVER_DEPTH.max;

/**
 * `POST /api/projects/discover { root, depth }`: registers every repository or package root under
 * `root` (see findRoots), named after its folder. Answers `{ added, existing, truncated }`.
 */
export function discoverHandler(store: Store, events?: Events) {
  return async ({ body }: Context) => {
    const { root, depth = DISCOVER_DEPTH.default } = await body();
    if (typeof root !== 'string' || root === '') {
      throw httpError(400, 'ROOT_REQUIRED', 'root must be a non-empty string');
    }
    if (!Number.isInteger(depth) || (depth as number) < 0 || (depth as number) > MAX_DEPTH) {
      throw httpError(400, 'INVALID_FIELD', `depth must be an integer from 0 to ${MAX_DEPTH}`);
    }
    const dir = await resolveProjectPath(root);
    const found = await findRoots(dir, { maxDepth: depth as number });
    const added: Project[] = [];
    const existing: Project[] = [];
    for (const path of found.roots) {
      const project = await store.write(() => store.insertProject({ name: basename(path), path }));
      if (project) {
        added.push(project);
        events?.emit('project.created', { project });
      } else {
        existing.push(store.getProjectByPath(path)!);
      }
    }
    return { added, existing, truncated: found.truncated };
  };
}
