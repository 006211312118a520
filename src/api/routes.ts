import { route, type Route } from '../router.ts';
import type { Scanner } from '../scanning.ts';
import type { Store } from '../store.ts';
import type { Events } from '../events.ts';
import type { Handler } from './context.ts';
import { eventsHandler, type SseOptions } from './events.ts';
import { projectHandlers } from './projects.ts';
import { settingsHandlers } from './settings.ts';

/** The route table of the spec. Order matters only where literals and `:id` share a prefix (tags, scan/all). */
export function createRoutes(store: Store, scanner: Scanner, { now = Date.now, events, sse }: { now?: () => number; events: Events; sse?: SseOptions | undefined }): Array<Route<Handler>> {
  const projects = projectHandlers(store, scanner, events);
  const settings = settingsHandlers(store, events);
  return [
    route('GET', '/health', () => ({ status: 'ok', timestamp: new Date(now()).toISOString() })),
    route('GET', '/api/projects', projects.list),
    route('POST', '/api/projects', projects.create),
    route('GET', '/api/projects/tags', projects.tags),
    route('GET', '/api/projects/overview', projects.overview),
    route('POST', '/api/projects/scan/all', projects.scanAll),
    route('GET', '/api/projects/:id', projects.get),
    route('PUT', '/api/projects/:id', projects.update),
    route('DELETE', '/api/projects/:id', projects.remove),
    route('GET', '/api/projects/:id/tests', projects.tests),
    route('GET', '/api/projects/:id/ports', projects.ports),
    route('POST', '/api/projects/:id/scan', projects.scan),
    route('GET', '/api/projects/:id/scan', projects.lastScan),
    route('GET', '/api/settings', settings.list),
    route('PUT', '/api/settings/:key', settings.put),
    route('GET', '/api/events', eventsHandler(events, sse)),
  ];
}
