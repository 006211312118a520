import type { Events } from '../../core/events.ts';
import { httpError, jsonParts, jsonStream } from '../http.ts';
import type { ScanOutcome, Scanner } from '../../core/scanner.ts';
import type { Store } from '../../core/store/store.ts';
import type { Project } from '../../core/types.ts';
import { parseId, projectInput, projectUpdate, resolveProjectPath } from '../validate.ts';
import type { Context } from './context.ts';
import { portKind } from './ports.ts';

/** Handlers of `/api/projects/**`, bound to one store and scanner. */
export function projectHandlers(store: Store, scanner: Scanner, events?: Events) {
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
  // `scan/all` entries end with `"error":null`, so a failed entry and a successful one have the same keys.
  const scanTail = ({ project, notes, runs, truncated }: ScanOutcome, inList = false): Buffer[] => [
    Buffer.from(',"ports":'),
    store.portsJson(project.id),
    Buffer.from(`,"notes":${JSON.stringify(notes)},"runs":${JSON.stringify(runs)},"truncated":${JSON.stringify(truncated)}`
      + `${inList ? ',"error":null' : ''}}`),
  ];
  // A first big save built the list on the way, off this thread: that one, else the store's (cached).
  const scanBody = (outcome: ScanOutcome, inList = false): Buffer[] =>
    [scanHead(outcome), outcome.list ?? store.testsJson(outcome.project.id), ...scanTail(outcome, inList)];

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
    overview: () => store.overviewJson(),
    lastScan: ({ params }: Context) => store.getScanSummary(find(params.id).id),
    get: ({ params }: Context) => find(params.id),

    async create({ body, res }: Context) {
      const input = projectInput(await body());
      const path = await resolveProjectPath(input.path);
      const project = await store.write(() => store.insertProject({ name: input.name, path }));
      if (!project) {
        throw httpError(409, 'DUPLICATE_PATH', 'Project with this path already exists', { body: { project: store.getProjectByPath(path) } });
      }
      res.statusCode = 201;
      events?.emit('project.created', { project });
      return project;
    },

    async update({ params, body }: Context) {
      const id = parseId(params.id ?? '');
      const fields = await body();
      // An unknown project is 404 whatever the body says; field rules apply to projects that exist.
      if (!store.getProject(id)) notFound();
      const update = projectUpdate(fields);
      const project = await store.write(() => store.updateProject(id, update)) ?? notFound();
      events?.emit('project.updated', { project });
      return project;
    },

    async remove({ params }: Context) {
      const id = parseId(params.id ?? '');
      if (!await store.write(() => store.deleteProject(id))) notFound();
      events?.emit('project.deleted', { id });
      return null;
    },

    // A big list is built while it is sent (see `testsJsonPieces`); smaller ones come from the cache.
    tests: ({ params }: Context) => {
      const { id } = find(params.id);
      return store.bigList(id) ? jsonStream(() => store.testsJsonPieces(id)) : store.testsJson(id);
    },
    ports: ({ params, query }: Context) => store.portsJson(find(params.id).id, portKind(query.kind)),
    // `?full=1` ignores what the last scan kept and reads the whole tree again.
    scan: async ({ params, query }: Context) => {
      const outcome = await scanner.scanProject(find(params.id), { full: isFull(query) });
      if (!store.bigList(outcome.project.id)) return jsonParts(scanBody(outcome));
      // A big answer is built while it is sent, as GET /tests does.
      return jsonStream(async function* pieces() {
        yield scanHead(outcome);
        yield* store.testsJsonPieces(outcome.project.id);
        yield* scanTail(outcome);
      });
    },

    /**
     * Scans every project, up to `scanner.concurrency` at once, answering in id order; one failure is
     * reported in its entry and does not stop the rest. Every entry has the same keys: a scan's answer plus
     * `error` (null, or why that scan failed).
     */
    async scanAll({ query }: Context) {
      const full = isFull(query);
      const projects = store.listProjects();
      // Per project, once its scan is over: its entry as pieces. A big list is read from the store while it
      // is sent (as a single scan's answer is), so the whole answer never exists at once.
      const entries: (() => AsyncIterable<Buffer>)[] = new Array(projects.length);
      let next = 0;
      const lane = async (): Promise<void> => {
        while (next < projects.length) {
          const i = next++;
          const project = projects[i]!;
          try {
            const outcome = await scanner.scanProject(project, { full });
            if (!store.bigList(outcome.project.id)) {
              const body = scanBody(outcome, true);
              entries[i] = async function* small() { yield* body; };
            } else {
              entries[i] = async function* big() {
                yield scanHead(outcome);
                yield* store.testsJsonPieces(outcome.project.id);
                yield* scanTail(outcome, true);
              };
            }
          } catch (error) {
            const message = error instanceof Error && 'status' in error ? error.message : 'Scan failed';
            const body = Buffer.from(JSON.stringify({ project, testsFound: 0, tests: [], ports: [], notes: [], runs: [], truncated: null, error: message }));
            entries[i] = async function* failed() { yield body; };
          }
        }
      };
      // Every scan is over before the answer starts, as before: its status and its entries do not change.
      // One lane more per scan process than it can run: a process that finishes takes the next project
      // while this thread saves the last one (the pool starts it first), instead of waiting for the save.
      await Promise.all(Array.from({ length: Math.min(scanner.concurrency * 2, projects.length) }, lane));
      return jsonStream(async function* pieces() {
        yield Buffer.from('[');
        for (let i = 0; i < entries.length; i++) {
          if (i > 0) yield Buffer.from(',');
          yield* entries[i]!();
        }
        yield Buffer.from(']');
      });
    },
  };
}

function isFull(query: Readonly<Record<string, string>>): boolean {
  return query.full === '1' || query.full === 'true';
}

function notFound(): never {
  throw httpError(404, 'PROJECT_NOT_FOUND', 'Project not found');
}
