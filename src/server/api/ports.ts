import { httpError } from '../http.ts';
import type { ListenRow, PortKindFilter, Store } from '../../core/store/store.ts';
import type { Context } from './context.ts';
import { readLivePorts, type LiveOptions } from '../../core/live/live-ports.ts';
import { withLive } from './live-ports.ts';

/** One port of `GET /api/ports`: who claims it, and whether more than one project does. */
export interface PortClaim {
  readonly port: number;
  /** True when more than one project listens on this port. */
  readonly conflict: boolean;
  /** By project id; scripts and sources sorted and unique (a null script_name is left out of `scripts`). */
  readonly projects: Array<{ project_id: number; name: string; scripts: string[]; sources: string[] }>;
}

const KINDS: ReadonlySet<string> = new Set(['listen', 'connect', 'container', 'all']);

/**
 * `?kind=` of the per-project ports listing: absent means `listen`.
 *
 * @example
 * portKind(undefined); // 'listen'
 * portKind('sideways'); // throws a 400 HttpError
 */
export function portKind(raw: string | undefined): PortKindFilter {
  if (raw === undefined) return 'listen';
  if (!KINDS.has(raw)) {
    throw httpError(400, 'INVALID_KIND', 'Invalid kind: use listen, connect, container or all');
  }
  return raw as PortKindFilter;
}

/** `?live=`: `1`/`true` adds who holds each port now. */
function liveWanted(raw: string | undefined): boolean {
  if (raw === undefined || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw httpError(400, 'INVALID_LIVE', 'Invalid live: use 1 or 0');
}

/** `?conflicts=`: `1`/`true` for only the contested ports, `0`/`false` or absent for all. */
function conflictsOnly(raw: string | undefined): boolean {
  if (raw === undefined || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw httpError(400, 'INVALID_CONFLICTS', 'Invalid conflicts: use 1 or 0');
}

/**
 * Groups listen rows (sorted by port, then project id) into one entry per port.
 *
 * @example
 * groupPorts(rows);
 * // [{ port: 3000, conflict: true,
 * //    projects: [{ project_id: 1, name: 'web', scripts: ['dev'], sources: ['default:next'] }, ...] }]
 */
export function groupPorts(rows: readonly ListenRow[]): PortClaim[] {
  const out: PortClaim[] = [];
  for (const row of rows) {
    let claim = out[out.length - 1];
    if (claim?.port !== row.port) {
      claim = { port: row.port, conflict: false, projects: [] };
      out.push(claim);
    }
    let project = claim.projects[claim.projects.length - 1];
    if (project?.project_id !== row.project_id) {
      project = { project_id: row.project_id, name: row.name, scripts: [], sources: [] };
      claim.projects.push(project);
    }
    if (row.script_name !== null && !project.scripts.includes(row.script_name)) {
      project.scripts.push(row.script_name);
    }
    if (!project.sources.includes(row.config_source)) project.sources.push(row.config_source);
  }
  return out.map((claim) => ({
    port: claim.port,
    conflict: claim.projects.length > 1,
    projects: claim.projects.map((p) => ({
      ...p,
      scripts: p.scripts.sort(byCodeUnit),
      sources: p.sources.sort(byCodeUnit),
    })),
  }));
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Handlers of `/api/ports`: the listen ports of every project, grouped by port. */
export function portHandlers(store: Store, live: LiveOptions = {}) {
  return {
    async all({ query }: Context) {
      const only = conflictsOnly(query.conflicts);
      // `?live=1`: who holds each port now; read from the machine at each request, so never cached.
      if (liveWanted(query.live)) {
        const claims = groupPorts(store.listenRows());
        return withLive(
          only ? claims.filter((c) => c.conflict) : claims,
          await readLivePorts(store.listProjects(), live),
        );
      }
      return store.listenPortsJson(only ? 'conflicts' : 'every', (rows) => {
        const claims = groupPorts(rows);
        return only ? claims.filter((c) => c.conflict) : claims;
      });
    },
  };
}
