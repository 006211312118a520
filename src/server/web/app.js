// Entry point: routes by the URL hash, starts the live stream, and mounts one view at a time.
import { fill, h, toast } from './dom.js';
import { connectLive } from './live.js';
import { apply, loadProjects } from './state.js';
import { portsView } from './ports.js';
import { projectView } from './project.js';
import { projectsView } from './projects.js';
import { applyRun } from './runs.js';
import { settingsView } from './settings.js';

const main = document.getElementById('main');
let unmount = () => {};

function route() {
  const hash = location.hash.replace(/^#/, '') || '/';
  const project = /^\/project\/(\d+)$/.exec(hash);
  const name = project ? 'project'
    : hash === '/ports' ? 'ports'
      : hash === '/settings' ? 'settings'
        : 'projects';
  for (const link of document.querySelectorAll('[data-nav]')) {
    if (link.dataset.nav === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  unmount();
  fill(main);
  main.dataset.view = name;
  const view = name === 'project' ? projectView(main, Number(project[1]))
    : name === 'ports' ? portsView(main)
      : name === 'settings' ? settingsView(main) : projectsView(main);
  unmount = view ?? (() => {});
  document.title = `projdex · ${name}`;
}

const live = document.getElementById('live');
let firstReady = true;
let instance;
connectLive({
  onEvent: (event) => {
    // Changes between the first load and the stream's start are in neither: read the lists once more then.
    // A new server life (restart) may reuse the ids this page saw: then replay cannot be trusted, reload.
    if (event.type === 'ready' && (firstReady || event.data.instance !== instance)) {
      if (!firstReady) apply({ type: 'reset', data: {} });
      else loadProjects().catch(() => {});
      firstReady = false;
      instance = event.data.instance;
    }
    apply(event);
    if (event.type.startsWith('run.')) applyRun(event);
    document.body.dataset.lastEvent = String(event.id);
  },
  onState: (s) => {
    live.textContent = s === 'live' ? 'live' : 'offline, retrying';
    live.className = `live ${s}`;
    document.body.dataset.live = s;
  },
});

window.addEventListener('hashchange', () => { route(); main.focus(); });
loadProjects().then(route, (error) => {
  route();
  toast(`Could not load projects: ${error.message}`, 'error');
  fill(main, h('p', { class: 'error', text: `Could not load projects: ${error.message}` }));
});
