// A project's scripts in the background: start its usual script (or a named one), follow the output, stop it.
// Polled (every second while one runs, else every 5 s) while the project page is open.
import { api } from './api.js';
import { fill, h, toast } from './dom.js';

/** Processes shown per project, newest first; the output of the newest three. */
const SHOWN = 5;
const WITH_OUTPUT = 3;

export function processesPanel(projectId) {
  const list = h('div', { id: 'process-list' });
  const script = h('input', {
    id: 'process-script', placeholder: 'dev',
    'aria-label': 'Script to start (empty: dev, else start, else web)',
    title: 'A package.json script, Procfile process, Makefile target, '
      + 'or compose:SERVICE for a compose service',
  });
  let timer;
  let closed = false;

  const status = (p) =>
    `${p.status}${p.exit_code === null ? '' : ` (code ${p.exit_code})`}${p.keep ? ', kept' : ''}`;
  const render = (procs, outputs) => fill(list, procs.length === 0
    ? h('p', { class: 'muted', text: 'Nothing started yet.' })
    : procs.map((p) => h('div', { class: `process ${p.status}`, 'data-process': p.id },
      h('p', {},
        h('strong', { text: p.script }), ` ${status(p)} · pid ${p.pid ?? '—'} · `,
        h('code', { text: p.command }), ' ',
        p.status === 'running' ? h('button', {
          'data-action': 'stop', class: 'danger', text: 'Stop', 'aria-label': `Stop ${p.script}`,
          onClick: () => stop(p),
        }) : null),
      p.note ? h('p', { class: 'muted', text: p.note }) : null,
      outputs.has(p.id) ? h('pre', {
        class: 'output', tabindex: '0', 'aria-label': `Output of ${p.script}`,
        text: outputs.get(p.id) || '(no output yet)',
      }) : null)));

  const refresh = async () => {
    const procs = (await api('GET', '/api/processes'))
      .filter((p) => p.project_id === projectId).reverse().slice(0, SHOWN);
    const outputs = new Map();
    for (const p of procs.slice(0, WITH_OUTPUT)) {
      outputs.set(p.id, (await api('GET', `/api/processes/${p.id}`)).output.slice(-20_000));
    }
    if (!closed) render(procs, outputs);
    return procs.some((p) => p.status === 'running');
  };
  const loop = async () => {
    clearTimeout(timer);
    let running = false;
    try {
      running = await refresh();
    } catch (error) {
      toast(`Could not load processes: ${error.message}`, 'error');
    }
    if (!closed) timer = setTimeout(loop, running ? 1000 : 5000);
  };
  const start = async () => {
    const name = script.value.trim();
    try {
      await api('POST', `/api/projects/${projectId}/processes`, name ? { script: name } : {});
    } catch (error) {
      toast(`Start failed: ${error.message}`, 'error');
    }
    loop();
  };
  const stop = async (p) => {
    try {
      await api('DELETE', `/api/processes/${p.id}`);
    } catch (error) {
      toast(`Stop failed: ${error.message}`, 'error');
    }
    loop();
  };

  const element = h('div', { id: 'project-processes' },
    h('div', { class: 'toolbar' }, script,
      h('button', { 'data-action': 'start', class: 'primary', text: 'Start', onClick: start })),
    list);
  loop();
  return { element, close: () => { closed = true; clearTimeout(timer); } };
}
