// What the page knows, kept current by the API answers and the live events; views subscribe to changes.
import { api } from './api.js';

export const state = {
  /** id -> Project */
  projects: new Map(),
  /** id -> { tests, cases, runners, ports } */
  overview: new Map(),
  /** id -> { files, tests } while a scan runs */
  scanning: new Map(),
  /** project id -> { id, output, status } of its newest run seen on this page (runs.js) */
  runs: new Map(),
  /** key -> value, or null until loaded */
  settings: null,
  loaded: false,
};

const listeners = new Set();

/** Subscribes to changes: `fn(what, id?)` with what = 'projects' | 'project' | 'scan' | 'settings'. */
export function watch(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function changed(what, id) {
  for (const fn of listeners) fn(what, id);
}

export async function loadProjects() {
  const [projects, overview] = await Promise.all([
    api('GET', '/api/projects'),
    api('GET', '/api/projects/overview'),
  ]);
  state.projects = new Map(projects.map((p) => [p.id, p]));
  state.overview = new Map(overview.map((o) => [o.project_id, o]));
  state.loaded = true;
  changed('projects');
}

let overviewTimer;
/** The overview changes with scans; many finishing together cause one reload. */
export function refreshOverview() {
  clearTimeout(overviewTimer);
  overviewTimer = setTimeout(async () => {
    const overview = await api('GET', '/api/projects/overview').catch(() => null);
    if (!overview) return;
    state.overview = new Map(overview.map((o) => [o.project_id, o]));
    changed('projects');
  }, 150);
}

export async function loadSettings() {
  state.settings = new Map(Object.entries(await api('GET', '/api/settings')));
  changed('settings');
}

/** Applies one live event. */
export function apply({ type, data }) {
  switch (type) {
    case 'project.created':
    case 'project.updated':
      state.projects.set(data.project.id, data.project);
      if (!state.overview.has(data.project.id)) {
        state.overview.set(data.project.id, {
          project_id: data.project.id, tests: 0, cases: 0, runners: {}, ports: [],
        });
      }
      changed('project', data.project.id);
      break;
    case 'project.deleted':
      state.projects.delete(data.id);
      state.overview.delete(data.id);
      state.scanning.delete(data.id);
      changed('project', data.id);
      break;
    case 'scan.started':
      state.scanning.set(data.id, { files: 0, tests: 0 });
      changed('scan', data.id);
      break;
    case 'scan.progress':
      if (state.scanning.has(data.id)) state.scanning.set(data.id, { files: data.files, tests: data.tests });
      changed('scan', data.id);
      break;
    case 'scan.finished':
    case 'scan.failed':
      state.scanning.delete(data.id);
      if (data.project && state.projects.has(data.id)) state.projects.set(data.id, data.project);
      changed('scan', data.id);
      if (type === 'scan.finished') refreshOverview();
      break;
    case 'settings.changed':
      if (state.settings) {
        if (data.value === null || data.value === undefined) state.settings.delete(data.key);
        else state.settings.set(data.key, data.value);
      }
      changed('settings');
      break;
    case 'reset':
      loadProjects().catch(() => {});
      if (state.settings) loadSettings().catch(() => {});
      changed('reset');
      break;
  }
}
