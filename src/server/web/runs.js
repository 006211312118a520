// Test runs on the dashboard: start a run (the project, one file, the failed files), follow its output live,
// and the marks that show a file's or a project's last result.
import { api } from './api.js';
import { ago, fill, h, toast } from './dom.js';
import { changed, state } from './state.js';

/** Output kept per running project: as the server's record, the last 1 MiB. */
const MAX_OUTPUT = 1024 * 1024;

/** Applies a run.* event to `state.runs` (project id -> { id, output, status }). */
export function applyRun({ type, data }) {
  const pid = data.project_id;
  if (type === 'run.started') state.runs.set(pid, { id: data.id, output: '', status: 'running' });
  const run = state.runs.get(pid);
  if (!run || run.id !== data.id) return;
  if (type === 'run.output') {
    run.output = (run.output + data.text).slice(-MAX_OUTPUT);
    changed('run-output', pid);
    return;
  }
  if (type === 'run.finished') {
    run.status = data.status;
    const p = state.projects.get(pid);
    if (p) {
      state.projects.set(pid, {
        ...p,
        last_run: { id: data.id, status: data.status, finished_at: data.finished_at },
      });
    }
  }
  changed('run', pid);
}

/** Starts a run; `body` is undefined (everything), `{ files }` or `{ failed: true }`. */
export async function startRun(p, body) {
  try {
    const run = await api('POST', `/api/projects/${p.id}/runs`, body);
    if (!state.runs.has(p.id) || state.runs.get(p.id).id !== run.id) {
      state.runs.set(p.id, { id: run.id, output: '', status: run.status });
    }
    changed('run', p.id);
  } catch (error) {
    toast(`Run of ${p.name} refused: ${error.message}`, 'error');
  }
}

export const isRunning = (id) => ['running', 'queued'].includes(state.runs.get(id)?.status);

/** ✓ / ✗ / – for a status, with words for screen readers. */
export function mark(status, extra = '') {
  if (!status) {
    return h('span', { class: 'mark never', text: '·', title: 'never run', 'aria-label': 'never run' });
  }
  const symbol = status === 'passed' ? '✓' : status === 'skipped' ? '–' : '✗';
  return h('span', {
    class: `mark ${status}`, text: symbol, title: `${status}${extra}`, 'aria-label': status,
  });
}

/** The project list's cell: the last run's mark and when. */
export function lastRunCell(p) {
  if (isRunning(p.id)) return h('span', { class: 'progress', role: 'status', text: 'running…' });
  const r = p.last_run;
  return r
    ? h('span', {}, mark(r.status), ` ${ago(r.finished_at)}`)
    : h('span', { class: 'muted', text: 'never' });
}

/** The project page's run section: buttons and the live output pane (which follows the end). */
export function runPanel(id) {
  const buttons = h('div', { class: 'toolbar' });
  const status = h('p', { id: 'run-status', role: 'status' });
  const output = h('pre', { id: 'run-output', class: 'output', tabindex: '0', 'aria-label': 'Run output' });
  let shownRun = null;
  const update = (what) => {
    const p = state.projects.get(id);
    if (!p) return;
    const run = state.runs.get(id);
    if (what === 'run-output' && run) {
      const follow = output.scrollTop + output.clientHeight >= output.scrollHeight - 4;
      output.textContent = run.output;
      if (follow) output.scrollTop = output.scrollHeight;
      return;
    }
    const busy = isRunning(id);
    fill(buttons,
      h('button', {
        class: 'primary', 'data-action': 'run', 'aria-disabled': busy ? 'true' : undefined, text: 'Run tests',
        onClick: () => { if (!isRunning(id)) startRun(p); },
      }),
      h('button', {
        'data-action': 'run-failed', 'aria-disabled': busy ? 'true' : undefined, text: 'Re-run failed',
        onClick: () => { if (!isRunning(id)) startRun(p, { failed: true }); },
      }),
      busy ? h('button', {
        'data-action': 'cancel-run', class: 'danger', text: 'Cancel',
        onClick: () => api('DELETE', `/api/runs/${run.id}`).catch((error) => toast(error.message, 'error')),
      }) : null);
    const last = p.last_run;
    status.textContent = busy ? `Run #${run.id} ${run.status}…`
      : last ? `Last run #${last.id} ${last.status}, ${ago(last.finished_at)}.` : 'Never run.';
    if (run && shownRun !== run.id) { shownRun = run.id; output.textContent = run.output; }
    else if (!run && last && shownRun !== last.id) {
      shownRun = last.id;
      api('GET', `/api/runs/${last.id}`).then((r) => {
        if (shownRun === r.id && !state.runs.has(id)) output.textContent = r.output;
      }).catch(() => {});
    }
  };
  return { element: h('div', {}, buttons, status, output), update };
}
