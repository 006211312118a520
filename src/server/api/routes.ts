import { route, type Route } from '../router.ts';
import type { Scanner } from '../../core/scanner.ts';
import type { Store } from '../../core/store/store.ts';
import type { Events } from '../../core/events.ts';
import type { Handler } from './context.ts';
import { readFileSync } from 'node:fs';
import { CHALLENGE_HEADER, isChallenge, proofOf } from '../identity.ts';
import { discoverHandler } from './discover.ts';
import { eventsHandler, type SseOptions } from './events.ts';
import { openApiDocument } from './openapi.ts';
import { portHandlers } from './ports.ts';
import { projectHandlers } from './projects.ts';
import { runHandlers } from './runs.ts';
import { createRuns, type Runs } from '../../core/runs/engine.ts';
import { settingsHandlers } from './settings.ts';

import { registryHandlers } from './registry.ts';
import { readLivePorts } from '../../core/live/live-ports.ts';
import { createProcessManager, type ProcessManager } from '../../core/processes/manager.ts';
import { processHandlers } from './processes.ts';

/**
 * The route table: the spec's routes and ours, each described in ROUTE_DOCS (openapi.ts). Order matters
 * only where literals and `:id` share a prefix (tags, overview, discover, scan/all).
 */
export function createRoutes(
  store: Store,
  scanner: Scanner,
  { now = Date.now, events, sse, instance, runs, processes }: {
    now?: () => number; events: Events; sse?: SseOptions | undefined; instance?: string | undefined;
    runs?: Runs | undefined; processes?: ProcessManager | undefined;
  },
): Array<Route<Handler>> {
  const projects = projectHandlers(store, scanner, events);
  const settings = settingsHandlers(store, events);
  const run = runHandlers(store, runs ?? createRuns({ store, scanner, events, now }));
  let document: Record<string, unknown> | undefined;
  const routes: Array<Route<Handler>> = [
    // Built from this very table on first request: a route without a doc entry fails here, and in its test.
    route('GET', '/api/openapi.json', () => (document ??= openApiDocument(routes, packageVersion()))),
    route('GET', '/health', ({ req }) => {
      // A client that read server.json asks for proof that this is the server that wrote it (identity.ts).
      const challenge = req.headers[CHALLENGE_HEADER];
      const proof = instance !== undefined && isChallenge(challenge)
        ? { proof: proofOf(instance, challenge) }
        : {};
      return { status: 'ok', timestamp: new Date(now()).toISOString(), ...proof };
    }),
    route('GET', '/api/projects', projects.list),
    route('POST', '/api/projects', projects.create),
    route('GET', '/api/projects/tags', projects.tags),
    route('POST', '/api/projects/discover', discoverHandler(store, events)),
    route('GET', '/api/projects/overview', projects.overview),
    route('POST', '/api/projects/scan/all', projects.scanAll),
    route('GET', '/api/projects/:id', projects.get),
    route('PUT', '/api/projects/:id', projects.update),
    route('DELETE', '/api/projects/:id', projects.remove),
    route('GET', '/api/projects/:id/tests', projects.tests),
    route('GET', '/api/projects/:id/ports', projects.ports),
    route('POST', '/api/projects/:id/scan', projects.scan),
    route('GET', '/api/ports', portHandlers(store).all),
    route('GET', '/api/ports/live', async () => readLivePorts(store.listProjects())),
    route('GET', '/api/projects/:id/scan', projects.lastScan),
    route('GET', '/api/settings', settings.list),
    route('GET', '/api/setting-keys', settings.keys),
    route('GET', '/api/settings/:key', settings.get),
    route('PUT', '/api/settings/:key', settings.put),
    route('DELETE', '/api/settings/:key', settings.remove),
    route('GET', '/api/events', eventsHandler(events, sse)),
    route('POST', '/api/projects/:id/runs', run.start),
    route('GET', '/api/projects/:id/runs', run.list),
    route('GET', '/api/runs/:id', run.get),
    route('DELETE', '/api/runs/:id', run.cancel),
    ...((registry) => [
      route('GET', '/api/export', registry.export),
      route('POST', '/api/import', registry.import),
    ])(registryHandlers(store, events, now)),
    ...processRoutes(processHandlers(store, processes ?? createProcessManager({ store, events }))),
  ];
  return routes;
}

function processRoutes(p: ReturnType<typeof processHandlers>): Array<Route<Handler>> {
  return [route('POST', '/api/projects/:id/processes', p.start), route('GET', '/api/processes', p.list),
    route('GET', '/api/processes/:id', p.get), route('DELETE', '/api/processes/:id', p.stop)];
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }).version;
}
