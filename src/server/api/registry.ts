import type { Events } from '../../core/events.ts';
import type { Store } from '../../core/store/store.ts';
import type { Project, ProjectUpdate } from '../../core/types.ts';
import { HttpError, httpError } from '../http.ts';
import { projectUpdate, resolveProjectPath } from '../validate.ts';
import type { Context } from './context.ts';

/** The name of the export format; an import refuses a document that does not carry it. */
export const REGISTRY_FORMAT = 'projdex-registry';
const VERSION = 1;
/** Most projects and settings one import may carry (the 1 MiB body limit comes first in practice). */
const MAX_ENTRIES = 10_000;

/** One project as exported: what a user set, never ids, scans or git state (they belong to one machine). */
export interface ExportedProject {
  readonly name: string;
  readonly path: string;
  readonly description: string | null;
  readonly framework: string | null;
  readonly tags: string[];
}

/**
 * What an import did: projects registered, projects (matched by path) whose fields it set, paths not
 * here.
 */
export interface ImportAnswer {
  readonly added: Project[];
  readonly updated: Project[];
  readonly missing: Array<{ name: string; path: string; error: string }>;
  readonly settings: number;
}

const bad = (message: string): never => { throw httpError(400, 'INVALID_IMPORT', message); };

/** Every field of an imported project checked, with messages naming the entry (`projects[2].tags ...`). */
function importedProject(
  entry: unknown,
  at: string,
): { path: string; fields: ProjectUpdate & { name: string } } {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    return bad(`${at} must be an object`);
  }
  const { name, path, description = null, framework = null, tags = [] } = entry as Record<string, unknown>;
  if (typeof path !== 'string' || path === '') return bad(`${at}.path must be a non-empty string`);
  if (typeof name !== 'string' || name.trim() === '') return bad(`${at}.name must be a non-empty string`);
  try {
    return { path, fields: { ...projectUpdate({ name, description, framework, tags }), name } };
  } catch (error) {
    if (error instanceof HttpError) return bad(`${at}.${error.message}`);
    throw error;
  }
}

/** The whole document checked before anything is written: one bad field is a 400 and nothing changes. */
export function parseImport(body: Record<string, unknown>) {
  if (body.format !== REGISTRY_FORMAT) {
    return bad(`format must be "${REGISTRY_FORMAT}" (the output of GET /api/export)`);
  }
  if (body.version !== VERSION) return bad(`version must be ${VERSION}`);
  const { projects = [], settings = {} } = body;
  if (!Array.isArray(projects) || projects.length > MAX_ENTRIES) {
    return bad(`projects must be an array of at most ${MAX_ENTRIES} entries`);
  }
  if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) {
    return bad('settings must be an object of strings');
  }
  const pairs = Object.entries(settings);
  if (pairs.length > MAX_ENTRIES) return bad(`settings must hold at most ${MAX_ENTRIES} keys`);
  for (const [key, value] of pairs) {
    if (key === '' || key.length > 1024 || !key.isWellFormed()) {
      return bad('settings keys must be 1 to 1024 characters of well-formed Unicode');
    }
    if (typeof value !== 'string' || !value.isWellFormed()) return bad(`settings.${key} must be a string`);
  }
  return {
    projects: projects.map((entry, i) => importedProject(entry, `projects[${i}]`)),
    settings: pairs as Array<[string, string]>,
  };
}

/** Handlers of `GET /api/export` and `POST /api/import`. */
export function registryHandlers(store: Store, events?: Events, now: () => number = Date.now) {
  return {
    export: () => ({
      format: REGISTRY_FORMAT,
      version: VERSION,
      exported_at: Math.floor(now() / 1000),
      projects: store.listProjects().map(({ name, path, description, framework, tags }): ExportedProject =>
        ({ name, path, description, framework, tags })),
      settings: store.getSettings(),
    }),

    /**
     * Merges by path: a path registered here takes the imported name, description, framework and tags; a new
     * one is registered; one that is not a directory on this machine is reported in `missing`. Settings are
     * written over keys of the same name. All writes land in one transaction.
     */
    async import({ body }: Context): Promise<ImportAnswer> {
      const parsed = parseImport(await body());
      const missing: ImportAnswer['missing'] = [];
      // Real paths first (no write yet): two spellings of one directory are one entry, the later one wins.
      const byPath = new Map<string, (typeof parsed.projects)[number]['fields']>();
      for (const { path, fields } of parsed.projects) {
        try {
          byPath.set(await resolveProjectPath(path), fields);
        } catch (error) {
          if (!(error instanceof HttpError)) throw error;
          missing.push({ name: fields.name, path, error: error.message });
        }
      }
      const added: Project[] = [];
      const updated: Project[] = [];
      await store.write(() => store.atomically(() => {
        for (const [path, fields] of byPath) {
          const existing = store.getProjectByPath(path);
          if (existing) {
            updated.push(store.updateProject(existing.id, fields)!);
          } else {
            const project = store.insertProject({ name: fields.name, path })!;
            added.push(store.updateProject(project.id, fields)!);
          }
        }
        for (const [key, value] of parsed.settings) store.putSetting(key, value);
      }));
      for (const project of added) events?.emit('project.created', { project });
      for (const project of updated) events?.emit('project.updated', { project });
      for (const [key, value] of parsed.settings) events?.emit('settings.changed', { key, value });
      return { added, updated, missing, settings: parsed.settings.length };
    },
  };
}
