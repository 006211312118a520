import { httpError, jsonParts } from '../http.ts';
import type { ScanOutcome, Scanner } from '../scanning.ts';
import type { Store } from '../store.ts';
import type { Project } from '../types.ts';
import { parseId, projectInput, projectUpdate, resolveProjectPath } from '../validate.ts';
import type { Context } from './context.ts';
import { portKind } from './ports.ts';

/** Handlers of `/api/projects/**`, bound to one store and scanner. */
export function projectHandlers(store: Store, scanner: Scanner) {
  const find = (raw: string | undefined): Project => {
    const project = store.getProject(parseId(raw ?? ''));
    if (!project) notFound();
    return project;
  };

  /**
   * A scan's answer: the spec's `project`, `testsFound` and `tests`, plus `ports`, `notes`, `runs` and
   * `truncated`.
   * Perf: tests and ports are spliced in as the JSON SQLite built, so a 90k-test scan never holds
   * 90k row objects and their stringified copy at once.
   */
  const scanBody = ({ project, testsFound, notes, runs, truncated }: ScanOutcome): Buffer[] => [
    Buffer.from(`{"project":${JSON.stringify(project)},"testsFound":${testsFound},"tests":`),
    store.testsJson(project.id),
    Buffer.from(',"ports":'),
    store.portsJson(project.id),
    Buffer.from(`,"notes":${JSON.stringify(notes)},"runs":${JSON.stringify(runs)},"truncated":${JSON.stringify(truncated)}}`),
  ];

  return {
    /** `?tag=&framework=&q=` narrow the list; an empty value does not filter. */
    list: ({ query }: Context) => {
      const filter: { tag?: string; framework?: string; q?: string } = {};
      for (const key of ['tag', 'framework', 'q'] as const) {
        const value = query[key];
        if (value === undefined || value === '') continue;
        if (value.length > 1024 || !value.isWellFormed()) throw httpError(400, 'INVALID_QUERY', `${key} must be at most 1024 characters of well-formed Unicode`);
        filter[key] = value;
      }
      try {
        return store.projectsJson(filter);
      } catch (cause) {
        throw httpError(500, 'LIST_FAILED', 'Failed to fetch projects', { cause });
      }
    },
    tags: () => store.listTags(),
    get: ({ params }: Context) => find(params.id),

    async create({ body, res }: Context) {
      const input = projectInput(await body());
      const path = await resolveProjectPath(input.path);
      const project = store.insertProject({ name: input.name, path });
      if (!project) {
        throw httpError(409, 'DUPLICATE_PATH', 'Project with this path already exists', { body: { project: store.getProjectByPath(path) } });
      }
      res.statusCode = 201;
      return project;
    },

    async update({ params, body }: Context) {
      const id = parseId(params.id ?? '');
      const fields = await body();
      // An unknown project is 404 whatever the body says; field rules apply to projects that exist.
      if (!store.getProject(id)) notFound();
      return store.updateProject(id, projectUpdate(fields)) ?? notFound();
    },

    remove({ params }: Context) {
      if (!store.deleteProject(parseId(params.id ?? ''))) notFound();
      return null;
    },

    tests: ({ params }: Context) => store.testsJson(find(params.id).id),
    ports: ({ params, query }: Context) => store.portsJson(find(params.id).id, portKind(query.kind)),
    scan: async ({ params }: Context) => jsonParts(scanBody(await scanner.scanProject(find(params.id)))),

    /**
     * Scans every project in id order; one failure is reported in its entry and does not stop the rest.
     * Every entry has the same keys: a scan's answer plus `error` (null, or why that scan failed).
     */
    async scanAll() {
      const parts: Buffer[] = [Buffer.from('[')];
      for (const project of store.listProjects()) {
        if (parts.length > 1) parts.push(Buffer.from(','));
        try {
          const body = scanBody(await scanner.scanProject(project));
          body[body.length - 1] = Buffer.concat([body.at(-1)!.subarray(0, -1), Buffer.from(',"error":null}')]);
          parts.push(...body);
        } catch (error) {
          const message = error instanceof Error && 'status' in error ? error.message : 'Scan failed';
          parts.push(Buffer.from(JSON.stringify({ project, testsFound: 0, tests: [], ports: [], notes: [], runs: [], truncated: null, error: message })));
        }
      }
      parts.push(Buffer.from(']'));
      return jsonParts(parts);
    },
  };
}

function notFound(): never {
  throw httpError(404, 'PROJECT_NOT_FOUND', 'Project not found');
}
