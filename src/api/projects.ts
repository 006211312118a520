import { httpError, jsonParts, jsonStream } from '../http.ts';
import type { ScanOutcome, Scanner } from '../scanning.ts';
import { STREAMED_LIST, type Store } from '../store.ts';
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
  const scanHead = ({ project, testsFound }: ScanOutcome): Buffer =>
    Buffer.from(`{"project":${JSON.stringify(project)},"testsFound":${testsFound},"tests":`);
  const scanTail = ({ project, notes, runs, truncated }: ScanOutcome): Buffer[] => [
    Buffer.from(',"ports":'),
    store.portsJson(project.id),
    Buffer.from(`,"notes":${JSON.stringify(notes)},"runs":${JSON.stringify(runs)},"truncated":${JSON.stringify(truncated)}}`),
  ];
  const scanBody = (outcome: ScanOutcome): Buffer[] => [scanHead(outcome), store.testsJson(outcome.project.id), ...scanTail(outcome)];

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

    // A big list is built while it is sent (see `testsJsonPieces`); smaller ones come from the cache.
    tests: ({ params }: Context) => {
      const { id } = find(params.id);
      return store.countTests(id) > STREAMED_LIST ? jsonStream(() => store.testsJsonPieces(id)) : store.testsJson(id);
    },
    ports: ({ params }: Context) => store.portsJson(find(params.id).id),
    scan: async ({ params }: Context) => {
      const outcome = await scanner.scanProject(find(params.id));
      if (outcome.testsFound <= STREAMED_LIST) return jsonParts(scanBody(outcome));
      // A big answer is built while it is sent, as GET /tests does.
      return jsonStream(async function* pieces() {
        yield scanHead(outcome);
        yield* store.testsJsonPieces(outcome.project.id);
        yield* scanTail(outcome);
      });
    },

    /**
     * Scans every project, up to `scanner.concurrency` at once, answering in id order; one failure is
     * reported in its entry and does not stop the rest.
     */
    async scanAll() {
      const projects = store.listProjects();
      const bodies: Buffer[][] = new Array(projects.length);
      let next = 0;
      const lane = async (): Promise<void> => {
        while (next < projects.length) {
          const i = next++;
          const project = projects[i]!;
          try {
            bodies[i] = scanBody(await scanner.scanProject(project));
          } catch (error) {
            const message = error instanceof Error && 'status' in error ? error.message : 'Scan failed';
            bodies[i] = [Buffer.from(JSON.stringify({ project, testsFound: 0, tests: [], error: message }))];
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(scanner.concurrency, projects.length) }, lane));
      const parts: Buffer[] = [Buffer.from('[')];
      bodies.forEach((body, i) => { if (i > 0) parts.push(Buffer.from(',')); parts.push(...body); });
      parts.push(Buffer.from(']'));
      return jsonParts(parts);
    },
  };
}

function notFound(): never {
  throw httpError(404, 'PROJECT_NOT_FOUND', 'Project not found');
}
