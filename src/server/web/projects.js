// The projects table: sortable, filterable, with add, add-under-a-folder, edit, delete and scan actions.
import { api, missingRoute } from './api.js';
import { ago, confirmDialog, fill, h, toast } from './dom.js';
import { editProject } from './edit.js';
import { gitText } from './project.js';
import { scanAll, scanOne } from './scan.js';
import { changed, state, watch } from './state.js';
import { lastRunCell } from './runs.js';

const COLUMNS = [
  { key: 'name', label: 'Name', value: (p) => p.name.toLowerCase() },
  { key: 'path', label: 'Path', value: (p) => p.path },
  { key: 'framework', label: 'Framework', value: (p) => p.framework ?? '' },
  { key: 'tags', label: 'Tags', value: (p) => p.tags.join(',') },
  { key: 'tests', label: 'Tests', value: (p) => state.overview.get(p.id)?.tests ?? 0, numeric: true },
  { key: 'ports', label: 'Listen ports', value: (p) => state.overview.get(p.id)?.ports[0] ?? Infinity,
    numeric: true },
  { key: 'scanned', label: 'Last scanned', value: (p) => p.last_scanned ?? -1, numeric: true },
  { key: 'run', label: 'Last run', value: (p) => p.last_run?.finished_at ?? -1, numeric: true },
];
/** A project whose last run did not pass (`failing` filter). */
const failing = (p) => p.last_run !== null && p.last_run !== undefined && p.last_run.status !== 'passed';

// Kept across visits of the view, like a user expects of a table's sort and filter.
const view = { sort: 'name', dir: 1, filter: '', failing: false };

export function projectsView(main) {
  // Perf: a row is built once and reused until its project, counts or scan state change (`dirty`), so a
  // keystroke in the filter with 500 projects only filters, sorts and re-attaches rows.
  const rows = new Map(); // id -> { tr, text }
  const dirty = new Set();
  const tbody = h('tbody');
  const count = h('span', { class: 'muted', id: 'project-count' });
  const filter = h('input', {
    type: 'search', id: 'project-filter', placeholder: 'Filter by name, path, framework, tag…',
    'aria-label': 'Filter projects',
    value: view.filter, onInput: (e) => { view.filter = e.target.value; render(); },
  });
  const headRow = h('tr');
  // On a narrow screen the table is a list of cards without a header row: sorting moves to a menu.
  const sortSelect = h('select', { id: 'sort-select', 'aria-label': 'Sort projects by', onChange: (e) => {
    const [key, dir] = e.target.value.split(':');
    view.sort = key;
    view.dir = Number(dir);
    render();
  } }, COLUMNS.flatMap((c) => [
    h('option', { value: `${c.key}:1`, text: `${c.label} ↑` }),
    h('option', { value: `${c.key}:-1`, text: `${c.label} ↓` }),
  ]));
  const table = h('table', { class: 'projects', id: 'projects-table' }, h('thead', {}, headRow), tbody);

  const header = () => {
    const cells = COLUMNS.map((c) => {
      const sorted = view.sort === c.key;
      const button = h('button', {
        class: 'sort', 'data-sort': c.key, onClick: () => {
          view.dir = sorted ? -view.dir : 1;
          view.sort = c.key;
          render();
          headRow.querySelector(`[data-sort="${c.key}"]`).focus();
        },
      }, c.label, h('span', {
        class: 'arrow', 'aria-hidden': 'true', text: sorted ? (view.dir === 1 ? '▲' : '▼') : '',
      }));
      return h('th', {
        scope: 'col', class: c.numeric ? 'num' : '',
        'aria-sort': sorted ? (view.dir === 1 ? 'ascending' : 'descending') : 'none',
      }, button);
    });
    fill(headRow, cells, h('th', { scope: 'col' }, h('span', { class: 'sr-only', text: 'Actions' })));
  };

  let shared = new Set(); // ports more than one project listens on, recounted on each render
  const rowFor = (p) => {
    const o = state.overview.get(p.id);
    const scanning = state.scanning.get(p.id);
    const known = rows.get(p.id);
    // A port another project starts or stops claiming changes this row's marks too.
    const marks = o ? o.ports.filter((port) => shared.has(port)).join(',') : '';
    if (known && !dirty.has(p.id) && known.marks === marks) return known.tr;
    dirty.delete(p.id);
    const tr = h('tr', { 'data-id': p.id, class: scanning ? 'scanning' : '' },
      h('td', { 'data-label': 'Name' }, h('a', { href: `#/project/${p.id}`, class: 'name', text: p.name }),
        p.git ? h('span', {
          class: `git${p.git.dirty ? ' dirty' : ''}`, title: gitText(p),
          text: `${p.git.branch ?? p.git.head?.slice(0, 7) ?? ''}${p.git.dirty ? '*' : ''}`,
        }) : null),
      h('td', { class: 'path', 'data-label': 'Path', title: p.path, text: p.path }),
      h('td', { 'data-label': 'Framework', text: p.framework ?? '' }),
      h('td', { 'data-label': 'Tags' }, p.tags.map((t) => h('span', { class: 'tag', text: t }))),
      h('td', { class: 'num tests', 'data-label': 'Tests', text: o ? String(o.tests) : '' }),
      h('td', { class: 'num ports', 'data-label': 'Listen ports', title: o ? o.ports.join(', ') : '' },
        o ? portCells(o.ports, shared) : null),
      h('td', { class: 'scanned', 'data-label': 'Last scanned' }, scanning
        ? h('span', {
          class: 'progress', role: 'status', text: scanning.files || scanning.tests
            ? `scanning… ${scanning.files.toLocaleString()} files, ${scanning.tests.toLocaleString()} tests`
            : 'scanning…',
        })
        : h('time', {
          text: ago(p.last_scanned),
          title: p.last_scanned ? new Date(p.last_scanned * 1000).toISOString() : '',
        })),
      h('td', { class: 'last-run', 'data-label': 'Last run' }, lastRunCell(p)),
      h('td', { class: 'actions' },
        // aria-disabled, not disabled: a disabled button drops the keyboard's focus while its scan runs.
        h('button', {
          'data-action': 'scan', 'aria-disabled': scanning ? 'true' : undefined,
          'aria-label': `Scan ${p.name}`,
          text: 'Scan', onClick: () => { if (!state.scanning.has(p.id)) scanOne(p); },
        }),
        h('button', {
          'data-action': 'edit', 'aria-label': `Edit ${p.name}`, text: 'Edit', onClick: () => editProject(p),
        }),
        h('button', {
          'data-action': 'delete', class: 'danger', 'aria-label': `Delete ${p.name}`, text: 'Delete',
          onClick: () => remove(p),
        })));
    rows.set(p.id, { tr, text: searchText(p), marks });
    return tr;
  };

  const render = () => {
    // A rebuilt row must not drop the keyboard's place: remember which row's which control had focus.
    const active = document.activeElement;
    const focusRow = tbody.contains(active) ? active.closest('tr')?.dataset.id : undefined;
    const focusAction = focusRow
      && (active.dataset.action ?? (active.classList.contains('name') ? 'open' : undefined));
    header();
    sortSelect.value = `${view.sort}:${view.dir}`;
    const words = view.filter.toLowerCase().split(/\s+/).filter(Boolean);
    const col = COLUMNS.find((c) => c.key === view.sort);
    const all = [...state.projects.values()];
    shared = sharedPorts(all);
    all.sort((a, b) => {
      const x = col.value(a);
      const y = col.value(b);
      return (x < y ? -1 : x > y ? 1 : a.id - b.id) * view.dir;
    });
    for (const id of rows.keys()) if (!state.projects.has(id)) rows.delete(id);
    // Perf: every row stays attached in sorted order and the filter only toggles `hidden`, as a static page
    // would; rows are re-attached only when the order or the set changed.
    const trs = all.map(rowFor);
    const attached = tbody.children;
    if (trs.length !== attached.length || all.some((p, i) => attached[i].dataset.id !== String(p.id))) {
      tbody.replaceChildren(...trs);
    } else {
      // a changed row, in place
      trs.forEach((tr, i) => { if (attached[i] !== tr) attached[i].replaceWith(tr); });
    }
    let shown = 0;
    all.forEach((p, i) => {
      const match = (words.length === 0 || words.every((w) => rows.get(p.id).text.includes(w)))
        && (!view.failing || failing(p));
      if (trs[i].hidden === match) trs[i].hidden = !match;
      if (match) shown++;
    });
    if (focusRow && !tbody.contains(document.activeElement)) {
      const row = tbody.querySelector(`tr[data-id="${focusRow}"]`);
      const target = focusAction === 'open'
        ? row?.querySelector('.name')
        : row?.querySelector(`[data-action="${focusAction}"]`);
      (target ?? row?.querySelector('[data-action="edit"]'))?.focus();
    }
    count.textContent = `${shown} of ${state.projects.size} projects`;
    summary.textContent = summaryLine(all, shared);
    empty.hidden = state.projects.size > 0;
  };

  const empty = h('p', {
    class: 'muted empty', text: 'No projects yet: add one by its path above.', hidden: true,
  });
  const summary = h('p', { class: 'muted', id: 'projects-summary', 'aria-live': 'polite' });
  fill(main,
    h('h1', { text: 'Projects' }),
    addForms(),
    h('div', { class: 'toolbar' }, filter,
      h('label', {}, h('input', { type: 'checkbox', id: 'failing-filter', checked: view.failing,
        onChange: (e) => { view.failing = e.target.checked; render(); } }), ' failing'), sortSelect, count,
      h('button', { id: 'scan-all', text: 'Scan all', onClick: () => scanAll() })),
    summary,
    h('div', { class: 'table-wrap' }, table),
    empty);
  render();
  return watch((what, id) => {
    if (what === 'settings') return;
    if (id === undefined) for (const key of rows.keys()) dirty.add(key);
    else dirty.add(id);
    render();
  });
}

/** Ports that more than one of `projects` listens on (from the overview). */
function sharedPorts(projects) {
  const claims = new Map();
  for (const p of projects) {
    for (const port of state.overview.get(p.id)?.ports ?? []) claims.set(port, (claims.get(port) ?? 0) + 1);
  }
  return new Set([...claims].filter(([, n]) => n > 1).map(([port]) => port));
}

/** "3 projects · 41 test files · 212 cases · 1 port collision": the registry at a glance. */
function summaryLine(projects, shared) {
  let tests = 0;
  let cases = 0;
  for (const p of projects) {
    const o = state.overview.get(p.id);
    tests += o?.tests ?? 0;
    cases += o?.cases ?? 0;
  }
  const n = (count, word) => `${count.toLocaleString()} ${word}${count === 1 ? '' : 's'}`;
  return `${n(projects.length, 'project')} · ${n(tests, 'test file')} · ${n(cases, 'case')} · `
    + `${n(shared.size, 'port collision')}`;
}

/** A row's listen ports (five at most), a port another project also claims marked with a badge. */
function portCells(ports, shared) {
  const cells = ports.slice(0, 5).flatMap((port, i) => [i ? ', ' : null, shared.has(port)
    ? h('span', {
      class: 'collision', title: `Port ${port} is claimed by more than one project (see Ports)`,
      text: `${port}!`,
    })
    : String(port)]);
  return [cells, ports.length > 5 ? ` +${ports.length - 5}` : null];
}

function searchText(p) {
  return `${p.name} ${p.path} ${p.framework ?? ''} ${p.tags.join(' ')} ${p.description ?? ''}`.toLowerCase();
}

async function remove(p) {
  if (!(await confirmDialog(
    `Delete “${p.name}” from the registry? Its directory stays on disk.`,
  ))) return;
  try {
    await api('DELETE', `/api/projects/${p.id}`);
    state.projects.delete(p.id);
    changed('project', p.id);
    toast(`Deleted ${p.name}`);
  } catch (error) {
    toast(`Delete failed: ${error.message}`, 'error');
  }
}

function addForms() {
  const path = h('input', {
    id: 'add-path', required: true, placeholder: '/home/me/app', 'aria-label': 'Project path',
    autocomplete: 'off',
  });
  const name = h('input', {
    id: 'add-name', placeholder: 'name (default: folder name)', 'aria-label': 'Project name',
    autocomplete: 'off',
  });
  const root = h('input', {
    id: 'discover-root', required: true, placeholder: '/home/me/code', 'aria-label': 'Folder to search',
    autocomplete: 'off',
  });
  // The CLI's `add --all` default and limit (core/roots.ts DISCOVER_DEPTH), so both find the same roots.
  const depth = h('input', {
    id: 'discover-depth', type: 'number', min: '0', max: '16', value: '4', 'aria-label': 'Depth',
  });
  const add = h('form', { class: 'inline-form', id: 'add-form', onSubmit: async (e) => {
    e.preventDefault();
    const value = path.value.trim();
    const label = name.value.trim() || value.replace(/\/+$/, '').split('/').pop() || value;
    try {
      const project = await api('POST', '/api/projects', { name: label, path: value });
      state.projects.set(project.id, project);
      changed('project', project.id);
      path.value = '';
      name.value = '';
      toast(`Added ${project.name}`);
      scanOne(project);
    } catch (error) {
      toast(`Could not add ${value}: ${error.message}`, 'error');
    }
  } }, h('label', { class: 'grow' }, 'Add a project by path ', path), name,
  h('button', { class: 'primary', type: 'submit', text: 'Add' }));
  const discover = h('form', { class: 'inline-form', id: 'discover-form', onSubmit: async (e) => {
    e.preventDefault();
    try {
      const found = await api('POST', '/api/projects/discover', {
        root: root.value.trim(), depth: depth.value === '' ? 4 : Number(depth.value),
      });
      const added = found?.added ?? [];
      for (const p of added) if (p?.id) state.projects.set(p.id, p);
      changed('projects');
      // The CLI's sentence: what was added and what was already there, so a second click does not read
      // as a failure.
      toast(`${added.length} added, ${found?.existing?.length ?? 0} already registered `
        + `under ${root.value.trim()}`
        + (found?.truncated
          ? ' (stopped early: the folder has too many folders; choose a smaller one or a lower depth)'
          : ''));
    } catch (error) {
      toast(missingRoute(error)
        ? 'This server cannot add a folder\'s repositories (POST /api/projects/discover is missing): '
          + 'update projdex, or add them one by one.'
        : `Could not search ${root.value.trim()}: ${error.message}`, 'error');
    }
  } }, h('label', { class: 'grow' }, 'Add every repository under a folder ', root),
  h('label', {}, 'depth ', depth),
  h('button', { type: 'submit', text: 'Add all' }));
  return h('div', { class: 'add' }, add, discover);
}
