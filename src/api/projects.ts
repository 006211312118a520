import { httpError, jsonParts } from '../http.ts';
import type { ScanOutcome, Scanner } from '../scanning.ts';
import type { Store } from '../store.ts';
import type { Project } from '../types.ts';
import { parseId, projectInput, projectUpdate, resolveProjectPath } from '../validate.ts';
import type { Context } from './context.ts';

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
    list: () => {
      try {
        return store.projectsJson();
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
    ports: ({ params }: Context) => store.portsJson(find(params.id).id),
    // `?full=1` ignores what the last scan kept and reads the whole tree again.
    scan: async ({ params, query }: Context) => jsonParts(scanBody(await scanner.scanProject(find(params.id), { full: isFull(query) }))),

    /** Scans every project in id order; one failure is reported in its entry and does not stop the rest. */
    async scanAll({ query }: Context) {
      const parts: Buffer[] = [Buffer.from('[')];
      for (const project of store.listProjects()) {
        if (parts.length > 1) parts.push(Buffer.from(','));
        try {
          parts.push(...scanBody(await scanner.scanProject(project, { full: isFull(query) })));
        } catch (error) {
          const message = error instanceof Error && 'status' in error ? error.message : 'Scan failed';
          parts.push(Buffer.from(JSON.stringify({ project, testsFound: 0, tests: [], error: message })));
        }
      }
      parts.push(Buffer.from(']'));
      return jsonParts(parts);
    },
  };
}

function isFull(query: Readonly<Record<string, string>>): boolean {
  return query.full === '1' || query.full === 'true';
}

function notFound(): never {
  throw httpError(404, 'PROJECT_NOT_FOUND', 'Project not found');
}
