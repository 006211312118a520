// One project's page: its fields, tests grouped by runner (with a filter), ports, and what the last scan
// followed.
import { api } from './api.js';
import { ago, confirmDialog, fill, h, plural, table, toast } from './dom.js';
import { editProject } from './edit.js';
import { processesPanel } from './processes.js';
import { scanOne } from './scan.js';
import { changed, state, watch } from './state.js';
import { mark, runPanel, startRun } from './runs.js';

export function projectView(main, id) {
  let tests = [];
  let ports = [];
  let summary = null;
  let testFilter = '';
  const testsBox = h('div', { id: 'tests-groups' });
  const head = h('div');
  const portsBox = h('div', { id: 'project-ports' });
  const scanBox = h('div', { id: 'project-scan' });
  const progress = h('p', { class: 'progress', id: 'project-progress', role: 'status' });
  const runs = runPanel(id);
  const processes = processesPanel(id);

  let headKey = '';
  const renderHead = () => {
    const p = state.projects.get(id);
    if (!p) {
      headKey = '';
      fill(head, h('h1', { text: 'Project not found' }),
        h('p', {}, 'It was deleted, or never existed. ', h('a', { href: '#/', text: 'Back to projects' })));
      return false;
    }
    const scanning = state.scanning.get(id);
    progress.textContent = scanning
      ? `Scanning… ${scanning.files} files walked, ${scanning.tests} tests found`
      : '';
    // Progress only changes the line above; the rest is rebuilt when the project or the scanning state
    // changes, keeping the focused button focused.
    const key = `${JSON.stringify(p)}|${Boolean(scanning)}`;
    if (key === headKey) return true;
    headKey = key;
    const focused = head.contains(document.activeElement) ? document.activeElement.dataset.action : undefined;
    fill(head,
      h('p', { class: 'crumbs' }, h('a', { href: '#/', text: 'Projects' }), ' / '),
      h('h1', { id: 'project-name', text: p.name }),
      h('p', { class: 'path', text: p.path }),
      p.description ? h('p', { id: 'project-description', text: p.description }) : null,
      h('dl', { class: 'facts' },
        h('dt', { text: 'Framework' }), h('dd', { text: p.framework ?? '—' }),
        h('dt', { text: 'Tags' }),
        h('dd', {}, p.tags.length ? p.tags.map((t) => h('span', { class: 'tag', text: t })) : '—'),
        h('dt', { text: 'Last scanned' }), h('dd', { text: ago(p.last_scanned) }),
        h('dt', { text: 'Git' }), h('dd', { id: 'project-git', text: gitText(p) })),
      h('div', { class: 'toolbar' },
        h('button', {
          class: 'primary', 'data-action': 'scan', 'aria-disabled': scanning ? 'true' : undefined,
          text: 'Scan',
          onClick: () => { if (!state.scanning.has(id)) scanOne(p); },
        }),
        h('button', { 'data-action': 'edit', text: 'Edit', onClick: () => editProject(p) }),
        h('button', { 'data-action': 'delete', class: 'danger', text: 'Delete', onClick: async () => {
          if (!(await confirmDialog(
            `Delete “${p.name}” from the registry? Its directory stays on disk.`,
          ))) return;
          try {
            await api('DELETE', `/api/projects/${id}`);
            state.projects.delete(id);
            location.hash = '#/';
            changed('project', id);
          } catch (error) { toast(`Delete failed: ${error.message}`, 'error'); }
        } })),
      progress);
    if (focused) head.querySelector(`[data-action="${focused}"]`)?.focus();
    return true;
  };

  const renderTests = () => {
    const words = testFilter.toLowerCase();
    const groups = new Map();
    for (const t of tests) {
      const runner = t.framework ?? 'unknown';
      if (!groups.has(runner)) groups.set(runner, { files: 0, cases: 0, shown: [] });
      const g = groups.get(runner);
      g.files++;
      g.cases += t.cases ?? 0;
      if (!words || t.file_path.toLowerCase().includes(words)) g.shown.push(t);
    }
    if (tests.length === 0) {
      const scanned = state.projects.get(id)?.last_scanned;
      fill(testsBox, h('p', {
        class: 'muted',
        text: scanned ? 'The last scan found no test files (see its notes below).' : 'Not scanned yet.',
      }));
      return;
    }
    const byCount = [...groups].sort((a, b) => b[1].files - a[1].files);
    fill(testsBox, byCount.map(([runner, g]) => h('details', {
      open: true, class: 'group', 'data-runner': runner,
    },
      h('summary', {},
        h('strong', { text: runner }), ` ${plural(g.files, 'file')}, ${plural(g.cases, 'case')}`,
        words ? h('span', { class: 'muted', text: ` (${g.shown.length} shown)` }) : null),
      h('ul', { class: 'files' }, g.shown.slice(0, 2000).map((t) => h('li', {
        'data-file': t.file_path, 'data-status': t.status ?? 'never',
      },
        mark(t.status), ' ', h('code', { text: t.file_path }),
        t.cases === null ? null : h('span', { class: 'muted', text: ` ${t.cases}` }),
        h('button', {
          class: 'small', 'data-action': 'run-file', 'aria-label': `Run ${t.file_path}`, text: 'Run',
          onClick: () => {
            const p = state.projects.get(id);
            if (p) startRun(p, { files: [t.file_path] });
          },
        })))))));
  };

  // One row per port and kind, with every script and file that names it: a port read from package.json,
  // .env and vite.config.ts is one port, not three rows. Every kind is listed (the ports the project listens
  // on, the services it connects to, the ports bound inside its containers); only listen rows are collisions.
  const renderPorts = () => {
    if (ports.length === 0) return fill(portsBox, h('p', { class: 'muted', text: 'No ports found.' }));
    const groups = groupPorts(ports);
    const others = groups.filter((g) => g.kind !== 'listen').length;
    fill(portsBox,
      table(['Port', 'Kind', 'Scripts', 'Sources'], groups.map((g) => [
        String(g.port), g.kind ?? '—', g.scripts.join(', '),
        h('span', { class: 'sources' },
          g.sources.flatMap((src, i) => [i ? ', ' : null, h('code', { text: src })])),
      ]),
      { id: 'project-ports-table' }),
      others === 0 ? null : h('p', { class: 'muted', id: 'project-ports-kinds',
        text: 'Only listen ports can collide with another project: connect ports are services this project '
          + 'calls, container ports are bound inside a container (or on a production host), not on this '
          + 'machine.' }));
  };

  const renderScan = () => {
    if (!summary) return;
    const runs = summary.runs.map((r) => [
      { code: r.package || '.' }, { code: r.command }, r.runner ?? '', { code: r.config },
      (r.notes ?? []).join('; '),
    ]);
    fill(scanBox,
      h('p', {
        class: 'muted',
        text: summary.scanned_at ? `Last scan ${ago(summary.scanned_at)}.` : 'Not scanned yet.',
      }),
      summary.truncated
        ? h('p', { class: 'warn', text: `The walk stopped early: ${summary.truncated}` })
        : null,
      runs.length ? table(['Package', 'Command', 'Runner', 'Config', 'Notes'], runs, { id: 'runs' }) : null,
      h('h3', { text: 'Notes' }),
      summary.notes.length ? h('ul', { id: 'notes' }, summary.notes.map((n) => h('li', { text: n })))
        : h('p', { class: 'muted', text: 'None.' }));
  };

  const load = async () => {
    try {
      const base = `/api/projects/${id}`;
      [tests, ports, summary] = await Promise.all([
        api('GET', `${base}/tests`),
        api('GET', `${base}/ports?kind=all`),
        api('GET', `${base}/scan`),
      ]);
    } catch (error) {
      if (error.status !== 404) toast(`Could not load the project: ${error.message}`, 'error');
      return;
    }
    renderTests(); renderPorts(); renderScan();
  };

  fill(main, head,
    h('section', { 'aria-labelledby': 'tests-title' }, h('h2', { id: 'tests-title', text: 'Tests' }),
      h('input', {
        type: 'search', id: 'tests-filter', placeholder: 'Filter test files…',
        'aria-label': 'Filter test files',
        onInput: (e) => { testFilter = e.target.value; renderTests(); },
      }), testsBox),
    h('section', { 'aria-labelledby': 'runs-title' },
      h('h2', { id: 'runs-title', text: 'Test runs' }), runs.element),
    h('section', { 'aria-labelledby': 'ports-title' },
      h('h2', { id: 'ports-title', text: 'Ports' }), portsBox),
    h('section', { 'aria-labelledby': 'processes-title' },
      h('h2', { id: 'processes-title', text: 'Processes' }), processes.element),
    h('section', { 'aria-labelledby': 'scan-title' },
      h('h2', { id: 'scan-title', text: 'What the scan followed' }), scanBox));
  if (renderHead()) { load(); runs.update(); }
  const off = watch((what, changedId) => {
    if (changedId !== undefined && changedId !== id && what !== 'projects') return;
    if (what === 'run-output') return runs.update(what);
    runs.update(what);
    // A finished run changed the files' marks: read them again.
    if (what === 'run' && state.runs.get(id)?.status !== 'running') load();
    const exists = renderHead();
    if (exists && what === 'scan' && !state.scanning.has(id)) load();
  });
  return () => { off(); processes.close(); };
}

/**
 * `main, 2 changes not committed… ` in words: branch (or detached head), dirtiness, distance to
 * upstream.
 */
export function gitText(p) {
  const g = p.git;
  if (!g) return p.git_note ?? '—';
  const name = g.branch ?? (g.head ? `detached at ${g.head.slice(0, 7)}` : 'no commits yet');
  const upstream = g.ahead === null ? '' : `, ${g.ahead} ahead, ${g.behind} behind its upstream`;
  return `${name}${g.dirty ? ', uncommitted changes' : ''}${upstream}`;
}

/** Ports rows (sorted by port) grouped by port and kind, scripts and sources unique in first-seen order. */
function groupPorts(rows) {
  const groups = new Map();
  for (const r of rows) {
    const key = `${r.port} ${r.kind ?? ''}`;
    let g = groups.get(key);
    if (!g) groups.set(key, g = { port: r.port, kind: r.kind, scripts: [], sources: [] });
    if (r.script_name && !g.scripts.includes(r.script_name)) g.scripts.push(r.script_name);
    if (!g.sources.includes(r.config_source)) g.sources.push(r.config_source);
  }
  return [...groups.values()];
}
