import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { haveChromium, launch, type Browser, type Page } from '../../test/helpers/cdp.ts';
import { spawnProjdex } from '../procs.ts';
import { seedStore } from '../seed.ts';
import { alternate, median, ms, type Row } from '../stats.ts';

const PROJECTS = 500;
/** Matches project-49 and project-490..499: 11 rows. */
const QUERY = 'project-49';

/**
 * The least a page could do with the same data: the 500 rows rendered by the server as plain HTML, and a
 * filter that only toggles `hidden`. The dashboard (fetch, build rows, sort, live stream) is timed against it.
 */
function baselinePage(projects: any[], overview: Map<number, any>): string {
  const esc = (s: unknown): string => String(s ?? '').replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const rows = projects.map((p) => {
    const o = overview.get(p.id);
    return `<tr data-text="${esc(`${p.name} ${p.path} ${p.framework} ${p.tags.join(' ')}`.toLowerCase())}"><td><a href="#">${esc(p.name)}</a></td>`
      + `<td>${esc(p.path)}</td><td>${esc(p.framework)}</td><td>${esc(p.tags.join(', '))}</td><td>${o?.tests ?? 0}</td>`
      + `<td>${esc(o?.ports.join(', '))}</td><td>${esc(p.last_scanned)}</td><td><button>Scan</button><button>Edit</button><button>Delete</button></td></tr>`;
  }).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/ui/app.css"></head><body><main>
<input type="search" id="project-filter"><table id="projects-table"><tbody>${rows}</tbody></table></main>
<script>document.getElementById('project-filter').addEventListener('input', (e) => { const q = e.target.value.toLowerCase();
for (const tr of document.querySelectorAll('#projects-table tbody tr')) tr.hidden = !tr.dataset.text.includes(q); });</script></body></html>`;
}

/** In the page, from navigation start: when all rows are there (first animation frame that sees them). */
const READY_PROBE = `(() => { const check = () => {
  if (document.querySelectorAll('#projects-table tbody tr').length >= ${PROJECTS}) window.__ready = performance.now();
  else requestAnimationFrame(check);
}; requestAnimationFrame(check); })();`;

/** Types `query` as one input event and times it to the next frame painted after the rows changed. */
const FILTER = (query: string): string => `new Promise((resolve) => {
  const input = document.getElementById('project-filter');
  const t0 = performance.now();
  input.value = ${JSON.stringify(query)};
  input.dispatchEvent(new Event('input', { bubbles: true }));
  requestAnimationFrame(() => setTimeout(() => resolve({ ms: performance.now() - t0,
    rows: [...document.querySelectorAll('#projects-table tbody tr')].filter((tr) => !tr.hidden).length })));
})`;

interface Times { render: number; filter: number; clear: number }

async function measure(browser: Browser, url: string): Promise<Times> {
  const page: Page = await browser.newPage({ width: 1280, height: 800 });
  try {
    const { identifier } = await page.send('Page.addScriptToEvaluateOnNewDocument', { source: READY_PROBE });
    await page.send('Page.navigate', { url });
    const render = await page.waitFor<number>('window.__ready', `${PROJECTS} rows at ${url}`, 30_000);
    await page.send('Page.removeScriptToEvaluateOnNewDocument', { identifier });
    const filtered = await page.eval<{ ms: number; rows: number }>(FILTER(QUERY));
    if (filtered.rows !== 11) throw new Error(`filter showed ${filtered.rows} rows at ${url}, expected 11`);
    const cleared = await page.eval<{ ms: number; rows: number }>(FILTER(''));
    if (cleared.rows !== PROJECTS) throw new Error(`clearing the filter showed ${cleared.rows} rows at ${url}`);
    return { render, filter: filtered.ms, clear: cleared.ms };
  } finally {
    await page.close();
  }
}

/** Dashboard with 500 projects in Chromium: time to first render and to a filtered view, against a static page. */
export async function dashboardSuite({ rounds, log }: { rounds: number; log: (line: string) => void }): Promise<Row[]> {
  if (!haveChromium()) {
    log('dashboard: skipped, Chromium is not installed (apt-get install chromium)');
    return [];
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'projdex-bench-ui-'));
  seedStore(dataDir, { projects: PROJECTS, testsEach: 20 });
  const projdex = await spawnProjdex(dataDir);
  const projects = await (await fetch(`${projdex.url}/api/projects`)).json() as any[];
  const overview = new Map(((await (await fetch(`${projdex.url}/api/projects/overview`)).json()) as any[]).map((o) => [o.project_id, o]));
  const html = baselinePage(projects, overview);
  const css = await (await fetch(`${projdex.url}/ui/app.css`)).text();
  const bare = createServer((req, res) => {
    const isCss = req.url === '/ui/app.css';
    res.writeHead(200, { 'content-type': isCss ? 'text/css' : 'text/html; charset=utf-8', 'cache-control': 'no-cache' });
    res.end(isCss ? css : html);
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}/`;
  let browser: Browser | undefined;
  try {
    browser = await launch();
    await measure(browser, `${projdex.url}/`); // warm-up: disk cache, JIT
    log(`dashboard: ${rounds} rounds, ${PROJECTS} projects`);
    const r = await alternate(rounds, () => measure(browser!, `${projdex.url}/`), () => measure(browser!, bareUrl));
    const row = (name: string, pick: (m: Times) => number, note: string): Row => {
      const s = median(r.subject.map(pick));
      const b = median(r.baseline.map(pick));
      return { name, subject: ms(s), baseline: ms(b), ratio: s / b, target: 'none', pass: null, note };
    };
    return [
      row(`dashboard: first render, ${PROJECTS} projects`, (m) => m.render, 'navigation start to a frame with every row; baseline: server-rendered static table'),
      row(`dashboard: filter to 11 of ${PROJECTS}`, (m) => m.filter, 'input event to the next frame; baseline: toggle `hidden` on static rows'),
      row(`dashboard: clear the filter, back to ${PROJECTS}`, (m) => m.clear, 'the same, the other way (lays out every row again)'),
    ];
  } finally {
    await browser?.close();
    await projdex.stop();
    bare.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
