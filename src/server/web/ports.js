// Ports across projects: one row per claim, collisions (two projects listening on one port) highlighted.
import { api } from './api.js';
import { fill, h, plural, toast } from './dom.js';
import { state, watch } from './state.js';

/**
 * `GET /api/ports`: one group per listen port, `{ port, conflict, projects: [{ project_id, name, scripts,
 * sources }] }`, flattened to one entry per claiming project for the table.
 */
async function loadPorts() {
  const groups = await api('GET', '/api/ports?live=1');
  return groups.map((g) => ({
    port: g.port,
    conflict: Boolean(g.conflict),
    live: g.live ?? null,
    liveNote: g.live_note ?? null,
    entries: g.projects.map((p) => ({
      project_id: p.project_id, project_name: p.name, kind: 'listen',
      script_name: p.scripts.join(', '), config_source: p.sources.join(', '),
    })),
  }));
}

export function portsView(main) {
  let groups = null;
  let onlyConflicts = false;
  const body = h('div', { id: 'ports-body' }, h('p', { class: 'muted', text: 'Loading ports…' }));
  const row = (g, e, i) => h('tr', { class: g.conflict ? 'conflict' : '', 'data-port': g.port },
    i > 0 ? null : h('th', { scope: 'row', rowspan: String(g.entries.length), class: 'num' }, String(g.port),
      g.conflict ? h('span', { class: 'badge', text: 'collision' }) : null,
      g.live ? h('span', {
        class: 'badge held', title: g.live.command ?? g.liveNote ?? '', text: liveText(g.live),
      }) : null),
    h('td', {}, projectLink(e)),
    h('td', { text: e.kind ?? '—' }),
    h('td', { text: e.script_name ?? '' }),
    h('td', {}, h('code', { text: e.config_source ?? '' })));
  const render = () => {
    if (!groups) return;
    const shown = onlyConflicts ? groups.filter((g) => g.conflict) : groups;
    const conflicts = groups.filter((g) => g.conflict).length;
    const summary = `${plural(groups.length, 'port')}, ${conflicts} claimed by more than one project.`;
    const held = groups.filter((g) => g.live).length;
    const unknown = groups.find((g) => !g.live && g.liveNote)?.liveNote;
    fill(body, h('p', { id: 'ports-summary', text: summary }),
      h('p', {
        id: 'ports-live', class: 'muted',
        text: unknown ? `Live: ${unknown}.` : `${plural(held, 'port')} listened on now.`,
      }),
      shown.length === 0 ? h('p', { class: 'muted', text: 'Nothing to show.' })
        : h('div', { class: 'table-wrap' }, h('table', { id: 'ports-table' },
          h('thead', {}, h('tr', {}, ['Port', 'Project', 'Kind', 'Script', 'Source']
            .map((c) => h('th', { scope: 'col', text: c })))),
          h('tbody', {}, shown.flatMap((g) => g.entries.map((e, i) => row(g, e, i)))))));
  };
  const load = () => loadPorts().then((g) => { groups = g; render(); },
    (error) => toast(`Could not load ports: ${error.message}`, 'error'));
  const onlyBox = h('input', {
    type: 'checkbox', id: 'only-conflicts',
    onChange: (e) => { onlyConflicts = e.target.checked; render(); },
  });
  fill(main, h('h1', { text: 'Ports' }),
    h('div', { class: 'toolbar' }, h('label', {}, onlyBox, ' Only collisions')), body);
  load();
  let timer;
  return watch((what) => {
    if (what === 'settings' || what === 'scan' && state.scanning.size > 0) return;
    clearTimeout(timer);
    timer = setTimeout(load, 300);
  });
}

/** Who listens on a port now: `live: pid 42 · web`, `live: pid 42` (no registered project), `live`. */
function liveText(live) {
  if (live.pid === null) return 'live';
  const project = live.project_id === null ? null
    : state.projects.get(live.project_id)?.name ?? `#${live.project_id}`;
  return `live: pid ${live.pid}${project ? ` · ${project}` : ''}`;
}

function projectLink(entry) {
  const id = entry.project_id ?? entry.id;
  const name = entry.project_name ?? entry.name ?? state.projects.get(id)?.name ?? `#${id}`;
  return h('a', { href: `#/project/${id}`, text: name });
}
