// The dashboard, clicked through in a real Chromium over the DevTools protocol, against the real server.
// Screenshots of every view (light/dark, wide/narrow) land in test-output/browser/ (git-ignored).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, suite, test } from 'node:test';
import { CHROMIUM, haveChromium, launch, type Browser, type Page } from '../helpers/cdp.ts';
import { call, makeTree, serve } from '../helpers/index.ts';
import { NODE_PROJECT } from '../helpers/runs.ts';

const SHOTS = join(import.meta.dirname, '..', '..', 'test-output', 'browser');
const missing = haveChromium() ? false : 'Chromium is not installed (apt-get install chromium); browser tests skipped';
if (missing && (process.env.CI || process.env.PROJDEX_REQUIRE_BROWSER)) throw new Error(`CI must run the browser tests: ${CHROMIUM} is missing`);

/** A project tree with vitest and pytest tests and a dev server port. */
function appTree(t: { after(fn: () => unknown): void }, port = 5173, extra: Record<string, string> = {}) {
  return makeTree(t, {
    ...extra,
    'package.json': JSON.stringify({ scripts: { dev: `vite --port ${port}`, test: 'vitest' }, devDependencies: { vitest: '1' } }),
    'src/a.test.ts': "test('a', () => {}); test('b', () => {});",
    'src/b.test.ts': "test('c', () => {});",
    'py/pytest.ini': '[pytest]\ntestpaths = tests\n',
    'py/tests/test_x.py': 'def test_one():\n    pass\n',
  }, 'projdex-ui-');
}

/** Screenshots of the current view in light and dark, wide and narrow; checks nothing overflows at 360 px. */
async function shoot(page: Page, name: string): Promise<void> {
  for (const [width, height, label] of [[1280, 800, 'wide'], [360, 740, 'narrow']] as const) {
    await page.size(width, height);
    for (const scheme of ['light', 'dark'] as const) {
      await page.colorScheme(scheme);
      await page.eval('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
      await page.screenshot(join(SHOTS, `${name}-${scheme}-${label}.png`));
    }
    if (width === 360) {
      const overflow = await page.eval<number>('document.documentElement.scrollWidth');
      assert.ok(overflow <= 360, `${name} is ${overflow} px wide at 360 px`);
    }
  }
  await page.size(1280, 800);
  await page.colorScheme('light');
}

/** What went wrong in the page, less the console lines Chromium prints for answers the page expects and shows (a refused edit, 401, a route this server lacks). */
const problems = (page: Page): string[] => page.problems.filter((p) => !/Failed to load resource: the server responded with a status of (400|401|404|405)/.test(p));

const rowNames = (page: Page): Promise<string[]> => page.eval('[...document.querySelectorAll("#projects-table tbody tr:not([hidden]) .name")].map((a) => a.textContent)');
// Every toast the page showed, kept by an observer `open` installs: a toast lives 4 s, which a poll on a
// loaded machine can miss.
const TOAST_LOG = `(() => {
  window.toastLog = [];
  new MutationObserver((changes) => {
    for (const c of changes) for (const n of c.addedNodes) if (n.classList?.contains('toast')) window.toastLog.push(n.textContent);
  }).observe(document.getElementById('toasts'), { childList: true });
})()`;
const toastSeen = (page: Page, pattern: string): Promise<string> =>
  page.waitFor(`(window.toastLog ?? []).find((t) => new RegExp(${JSON.stringify(pattern)}).test(t))`, `a toast matching /${pattern}/`);

suite('the dashboard in Chromium', { skip: missing, timeout: 180_000 }, () => {
  let browser: Browser;
  before(async () => { browser = await launch(); });
  after(async () => { await browser?.close(); });

  async function open(url: string): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(url);
    await page.eval(TOAST_LOG);
    return page;
  }

  test('projects: add by path (click and keyboard), live changes, sort, filter, edit, delete, scan one and all', async (t) => {
    const server = await serve(t);
    const a = appTree(t, 5173);
    const b = makeTree(t, { 'go.mod': 'module x\n\ngo 1.22\n', 'x_test.go': 'package x\n\nfunc TestX(t *testing.T) {}\n' }, 'projdex-ui-');
    const c = appTree(t, 3000);
    const page = await open(`${server.url}/`);
    await page.waitFor('document.body.dataset.live === "live"', 'the live stream');
    await page.waitFor('document.querySelector(".empty") && !document.querySelector(".empty").hidden', 'the empty state');

    // Add by clicking: the new project is scanned at once.
    await page.type('#add-path', a);
    await page.type('#add-name', 'alpha');
    await page.click('#add-form button[type=submit]');
    await page.waitFor('document.querySelector("#projects-table tbody tr td.tests")?.textContent === "3"', 'alpha scanned, 3 tests');
    const [alpha] = (await call(`${server.url}/api/projects`)).body;
    assert.equal(alpha.name, 'alpha');
    assert.notEqual(alpha.last_scanned, null);
    assert.equal(await page.text(`tr[data-id="${alpha.id}"] td.ports`), '5173');

    // Add with the keyboard only: type, Enter.
    await page.type('#add-path', c);
    await page.press('Enter');
    await page.waitFor('document.querySelectorAll("#projects-table tbody tr").length === 2', 'the second project');
    const third = (await call(`${server.url}/api/projects`)).body.find((p: any) => p.path === c);
    assert.equal(third.name, c.split('/').pop(), 'the name defaults to the folder name');

    // Changed elsewhere (another client of the API): appears without a reload.
    const beta = (await call(`${server.url}/api/projects`, 'POST', { name: 'beta', path: b })).body;
    await page.waitFor(`document.querySelector('tr[data-id="${beta.id}"]')`, 'beta from another client');
    await call(`${server.url}/api/projects/${beta.id}`, 'PUT', { tags: ['go', 'remote'] });
    await page.waitFor(`document.querySelector('tr[data-id="${beta.id}"] .tag')?.textContent === 'go'`, 'beta\'s tags from another client');
    await call(`${server.url}/api/projects/${beta.id}/scan`, 'POST');
    await page.waitFor(`document.querySelector('tr[data-id="${beta.id}"] td.tests')?.textContent === '1'`, 'beta\'s scan from another client');

    // Sort by name (default, ascending), then by tests descending with the keyboard.
    assert.deepEqual(await rowNames(page), ['alpha', 'beta', third.name].sort());
    await page.click('button[data-sort="name"]');
    assert.deepEqual(await rowNames(page), ['alpha', 'beta', third.name].sort().reverse());
    await page.eval('document.querySelector(\'button[data-sort="tests"]\').focus()');
    await page.press('Enter');
    await page.press('Enter');
    assert.equal(await page.eval('document.querySelector(\'th[aria-sort="descending"] button\')?.dataset.sort'), 'tests');
    const tests = await page.eval<string[]>('[...document.querySelectorAll("#projects-table tbody tr:not([hidden]) td.tests")].map((td) => td.textContent)');
    assert.deepEqual(tests, ['3', '3', '1']);

    // Filter by a tag and by a path fragment.
    await page.type('#project-filter', 'remote');
    assert.deepEqual(await rowNames(page), ['beta']);
    assert.equal(await page.text('#project-count'), '1 of 3 projects');
    await page.type('#project-filter', '');
    assert.equal((await rowNames(page)).length, 3);
    await page.click('button[data-sort="name"]');
    await shoot(page, 'projects');

    // Edit through the dialog.
    await page.click(`tr[data-id="${alpha.id}"] [data-action=edit]`);
    await page.type('#edit-name', 'alpha-renamed');
    await page.type('#edit-description', 'The front end');
    await page.type('#edit-framework', 'vite');
    await page.type('#edit-tags', 'web, ui, web');
    await shoot(page, 'edit-dialog');
    await page.click('#edit-save');
    await page.waitFor('!document.querySelector("#edit-dialog")', 'the dialog to close');
    const edited = (await call(`${server.url}/api/projects/${alpha.id}`)).body;
    assert.deepEqual({ name: edited.name, description: edited.description, framework: edited.framework, tags: edited.tags },
      { name: 'alpha-renamed', description: 'The front end', framework: 'vite', tags: ['web', 'ui'] });
    await page.waitFor(`document.querySelector('tr[data-id="${alpha.id}"] .name')?.textContent === 'alpha-renamed'`, 'the renamed row');

    // An edit the server refuses shows its message and changes nothing.
    await page.click(`tr[data-id="${alpha.id}"] [data-action=edit]`);
    await page.type('#edit-name', '   ');
    await page.eval('document.querySelector("#edit-name").required = false');
    await page.click('#edit-save');
    await page.waitFor('!document.querySelector("#edit-dialog .error").hidden', 'the refusal');
    assert.match(await page.text('#edit-dialog .error') ?? '', /name/);
    await page.press('Escape');
    await page.waitFor('!document.querySelector("#edit-dialog")', 'the dialog to close');
    assert.equal((await call(`${server.url}/api/projects/${alpha.id}`)).body.name, 'alpha-renamed');

    // Delete: cancel keeps it, confirm removes it.
    await page.click(`tr[data-id="${beta.id}"] [data-action=delete]`);
    await page.waitFor('document.querySelector("#confirm-dialog").open', 'the confirmation');
    await shoot(page, 'confirm-delete');
    await page.click('#confirm-cancel');
    assert.equal((await call(`${server.url}/api/projects/${beta.id}`)).status, 200);
    await page.click(`tr[data-id="${beta.id}"] [data-action=delete]`);
    await page.click('#confirm-ok');
    await page.waitFor(`!document.querySelector('tr[data-id="${beta.id}"]')`, 'beta\'s row to go');
    assert.equal((await call(`${server.url}/api/projects/${beta.id}`)).status, 404);

    // Deleted elsewhere: disappears.
    await call(`${server.url}/api/projects/${third.id}`, 'DELETE');
    await page.waitFor(`!document.querySelector('tr[data-id="${third.id}"]')`, 'a row deleted elsewhere to go');

    // Scan one, then all.
    const before1 = (await call(`${server.url}/api/projects/${alpha.id}/scan`)).body.scanned_at;
    // By keyboard: the row is rebuilt while it scans, and the focus stays on its Scan button.
    await page.eval(`document.querySelector('tr[data-id="${alpha.id}"] [data-action=scan]').focus()`);
    await page.press('Enter');
    await toastSeen(page, 'alpha-renamed: 3 test files');
    await page.waitFor(`!document.querySelector('tr[data-id="${alpha.id}"] [data-action=scan]').hasAttribute('aria-disabled')`, 'the scan to end');
    assert.deepEqual(await page.eval('[document.activeElement.closest("tr")?.dataset.id, document.activeElement.dataset.action]'), [String(alpha.id), 'scan']);
    (await call(`${server.url}/api/projects`, 'POST', { name: 'gamma', path: b }));
    await page.click('#scan-all');
    await toastSeen(page, 'Scanned 2 of 2 projects');
    for (const p of (await call(`${server.url}/api/projects`)).body) assert.notEqual(p.last_scanned, null, p.name);
    assert.ok((await call(`${server.url}/api/projects/${alpha.id}/scan`)).body.scanned_at >= before1);
    assert.deepEqual(problems(page), []);
  });

  test('a confirmation answers once, from its own buttons or Escape, even when the next one opens at once', async (t) => {
    const server = await serve(t);
    const page = await open(`${server.url}/`);
    await page.waitFor('document.body.dataset.live === "live"', 'the page');
    // Cancel, and open the next confirmation before the dialog's close event of the first is dispatched.
    const answers = await page.eval(`(async () => {
      const { confirmDialog } = await import('/ui/dom.js');
      const first = confirmDialog('first');
      document.getElementById('confirm-cancel').click();
      const second = confirmDialog('second');
      const r1 = await first;
      await new Promise((r) => setTimeout(r, 50));
      const stillOpen = document.getElementById('confirm-dialog').open;
      document.getElementById('confirm-ok').click();
      return [r1, stillOpen, await second];
    })()`);
    assert.deepEqual(answers, [false, true, true]);
    await page.eval('import("/ui/dom.js").then((m) => { window.third = m.confirmDialog("third"); })');
    await page.waitFor('document.getElementById("confirm-dialog").open', 'the third confirmation');
    await page.press('Escape');
    assert.equal(await page.eval('window.third'), false);
    assert.deepEqual(problems(page), []);
  });

  test('add every repository under a folder', async (t) => {
    const server = await serve(t);
    const root = makeTree(t, { 'one/.git/HEAD': 'ref: refs/heads/main\n', 'one/package.json': '{}', 'two/.git/HEAD': 'ref: refs/heads/main\n' }, 'projdex-ui-');
    const page = await open(`${server.url}/`);
    await page.waitFor('document.body.dataset.live === "live"', 'the live stream');
    await page.type('#discover-root', root);
    await page.click('#discover-form button[type=submit]');
    const probe = await call(`${server.url}/api/projects/discover`, 'POST', { root: '/nonexistent-projdex-root', depth: 1 });
    if (probe.status === 404 || probe.status === 405) {
      // This server does not have the route yet: the page says so plainly.
      await toastSeen(page, 'cannot add a folder\'s repositories');
      assert.deepEqual((await call(`${server.url}/api/projects`)).body, []);
    } else {
      await page.waitFor('document.querySelectorAll("#projects-table tbody tr").length === 2', 'both repositories');
      const paths = (await call(`${server.url}/api/projects`)).body.map((p: any) => p.path).sort();
      assert.deepEqual(paths, [join(root, 'one'), join(root, 'two')]);
    }
    assert.deepEqual(problems(page), []);
  });

  test('a project page: tests by runner with counts and a filter, ports of every kind with sources, runs and notes, scan progress', async (t) => {
    const server = await serve(t);
    // A container port (EXPOSE) and a service the app connects to are listed beside the dev server, by kind.
    const dir = appTree(t, 5173, { 'Dockerfile': 'FROM node:22\nEXPOSE 8080\n', '.env': 'DATABASE_URL=postgres://localhost:5432/app\n' });
    const project = (await call(`${server.url}/api/projects`, 'POST', { name: 'alpha', path: dir })).body;
    const page = await open(`${server.url}/#/project/${project.id}`);
    await page.waitFor('document.body.dataset.live === "live"', 'the live stream');
    await page.waitFor('document.querySelector("#tests-groups")?.textContent.includes("Not scanned yet")', 'the unscanned state');
    await page.click('[data-action=scan]');
    await page.waitFor('document.querySelectorAll("#tests-groups details").length === 2', 'two runner groups');
    const groups = await page.eval<string[]>('[...document.querySelectorAll("#tests-groups summary")].map((s) => s.textContent)');
    assert.deepEqual(groups, ['vitest 2 files, 3 cases', 'pytest 1 file, 1 case']);
    await page.type('#tests-filter', 'b.test');
    assert.deepEqual(await page.eval('[...document.querySelectorAll("#tests-groups li code")].map((c) => c.textContent)'), ['src/b.test.ts']);
    assert.match(await page.text('#tests-groups summary') ?? '', /\(1 shown\)/);
    await page.type('#tests-filter', '');
    const ports = await page.eval<string[][]>('[...document.querySelectorAll("#project-ports tbody tr")].map((tr) => [...tr.cells].map((c) => c.textContent))');
    assert.deepEqual(ports, [
      ['5173', 'listen', 'dev', 'package.json'], ['5432', 'connect', '', '.env'], ['8080', 'container', '', 'Dockerfile'],
    ]);
    assert.match(await page.text('#project-ports-kinds') ?? '', /^Only listen ports can collide/);
    const runs = await page.eval<string[]>('[...document.querySelectorAll("#runs tbody tr td:nth-child(3)")].map((c) => c.textContent)');
    const api = (await call(`${server.url}/api/projects/${project.id}/scan`)).body;
    assert.deepEqual(runs, api.runs.map((r: any) => r.runner ?? ''));
    assert.equal(await page.eval('document.querySelectorAll("#notes li").length'), api.notes.length);
    await shoot(page, 'project');

    // Progress of a scan started elsewhere shows on the page; its end reloads the lists.
    const events: string[] = [];
    const seen = page.waitFor('document.querySelector("#project-progress")?.textContent.startsWith("Scanning")', 'progress', 10_000).then(() => events.push('progress')).catch(() => {});
    server.events.emit('scan.started', { id: project.id, name: 'alpha', path: dir });
    server.events.emit('scan.progress', { id: project.id, files: 42, tests: 0 });
    await seen;
    assert.deepEqual(events, ['progress']);
    assert.equal(await page.text('#project-progress'), 'Scanning… 42 files walked, 0 tests found');
    server.events.emit('scan.finished', { id: project.id, testsFound: 3, truncated: null, notes: 0, project });
    await page.waitFor('document.querySelector("#project-progress")?.textContent === ""', 'progress to clear');

    // Edited and deleted elsewhere: the page follows.
    await call(`${server.url}/api/projects/${project.id}`, 'PUT', { description: 'edited elsewhere' });
    await page.waitFor('document.querySelector("#project-description")?.textContent === "edited elsewhere"', 'the new description');
    await call(`${server.url}/api/projects/${project.id}`, 'DELETE');
    await page.waitFor('document.querySelector("h1")?.textContent === "Project not found"', 'the deleted state');
    assert.deepEqual(problems(page), []);
  });

  test('a test run: Run, live output, a mark per file, re-run failed, one file, the last-run column and the failing filter', async (t) => {
    const server = await serve(t);
    const dir = makeTree(t, NODE_PROJECT, 'projdex-ui-');
    const project = (await call(`${server.url}/api/projects`, 'POST', { name: 'runner', path: dir })).body;
    await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
    const page = await open(`${server.url}/#/project/${project.id}`);
    await page.waitFor('document.body.dataset.live === "live"', 'the live stream');
    await page.waitFor('document.querySelector("#run-status")?.textContent === "Never run."', 'the never-run state');
    const fileStatus = (file: string): string => `document.querySelector('li[data-file="${file}"]')?.dataset.status`;
    // The file list loads beside the run status: waited for, not assumed.
    await page.waitFor(`${fileStatus('test/fail.test.mjs')} === "never"`, 'the never-run mark');
    await page.click('[data-action=run]');
    await page.waitFor('document.querySelector("#run-output")?.textContent.includes("✖ adds")', 'the live output');
    await page.waitFor('document.querySelector("#run-status")?.textContent.startsWith("Last run #1 failed")', 'the run to end');
    await page.waitFor(`${fileStatus('test/fail.test.mjs')} === "failed"`, 'the marks');
    assert.deepEqual(await page.eval(`[${fileStatus('test/pass.test.mjs')}, ${fileStatus('test/skip.test.mjs')}]`), ['passed', 'skipped']);
    await shoot(page, 'project-run');

    await page.click('[data-action=run-failed]');
    await page.waitFor('document.querySelector("#run-status")?.textContent.startsWith("Last run #2 failed")', 'the re-run of the failed file');
    assert.deepEqual((await call(`${server.url}/api/runs/2`)).body.files.map((f: any) => f.file_path), ['test/fail.test.mjs']);

    // The projects page: the last run's mark, and the failing filter.
    await page.goto(`${server.url}/#/`);
    await page.waitFor(`document.querySelector('tr[data-id="${project.id}"] td.last-run .mark.failed')`, 'a failed mark in the list');
    await page.click('#failing-filter');
    assert.deepEqual(await rowNames(page), ['runner']);
    await shoot(page, 'projects-run');

    await page.goto(`${server.url}/#/project/${project.id}`);
    await page.waitFor('document.querySelector(\'li[data-file="test/pass.test.mjs"] [data-action=run-file]\')', 'the file list');
    await page.click('li[data-file="test/pass.test.mjs"] [data-action=run-file]');
    await page.waitFor('document.querySelector("#run-status")?.textContent.startsWith("Last run #3 passed")', 'the one-file run');
    await page.goto(`${server.url}/#/`);
    await page.waitFor(`document.querySelector('tr[data-id="${project.id}"] td.last-run .mark.passed')`, 'a passed mark');
    assert.deepEqual(await rowNames(page), [], 'the failing filter hides a project whose last run passed');
    await page.click('#failing-filter');
    assert.deepEqual(await rowNames(page), ['runner']);
    assert.deepEqual(problems(page), []);
  });

  test('ports across projects, collisions highlighted', async (t) => {
    const server = await serve(t);
    for (const [name, port] of [['web', 3000], ['admin', 3000], ['api', 8080]] as const) {
      const p = (await call(`${server.url}/api/projects`, 'POST', { name, path: appTree(t, port) })).body;
      await call(`${server.url}/api/projects/${p.id}/scan`, 'POST');
    }
    const page = await open(`${server.url}/#/ports`);
    await page.waitFor('document.querySelector("#ports-table")', 'the ports table');
    const rows = await page.eval<Array<{ port: string; conflict: boolean; project: string; rest: string[] }>>(`[...document.querySelectorAll('#ports-table tbody tr')]
      .map((tr) => ({ port: tr.dataset.port, conflict: tr.classList.contains('conflict'), project: tr.querySelector('a').textContent,
        rest: [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent) }))`);
    const claim = ['listen', 'dev', 'package.json'];
    assert.deepEqual(rows, [
      { port: '3000', conflict: true, project: 'web', rest: claim }, { port: '3000', conflict: true, project: 'admin', rest: claim },
      { port: '8080', conflict: false, project: 'api', rest: claim },
    ]);
    assert.equal(await page.text('#ports-table .badge'), 'collision');
    assert.equal(await page.text('#ports-summary'), '2 ports, 1 claimed by more than one project.');
    await page.click('#only-conflicts');
    assert.equal(await page.eval('document.querySelectorAll("#ports-table tbody tr").length'), 2);
    await shoot(page, 'ports');
    assert.deepEqual(problems(page), []);
  });

  test('settings: add, edit, delete, and changes from elsewhere', async (t) => {
    const server = await serve(t);
    await call(`${server.url}/api/settings/editor`, 'PUT', { value: 'vim' });
    const page = await open(`${server.url}/#/settings`);
    await page.waitFor('document.querySelector(\'#settings-table tr[data-key="editor"] .value\')?.textContent === "vim"', 'the existing setting');
    await page.type('#setting-key', 'theme');
    await page.type('#setting-value', 'dark');
    await page.click('#setting-form button[type=submit]');
    await page.waitFor('document.querySelector(\'tr[data-key="theme"] .value\')?.textContent === "dark"', 'the new setting');
    assert.equal((await call(`${server.url}/api/settings`)).body.theme, 'dark');

    await page.click('tr[data-key="theme"] [data-action=edit]');
    await page.type('tr[data-key="theme"] input', 'light');
    // A change from elsewhere while typing: it shows, and what was typed stays, focused.
    await call(`${server.url}/api/settings/editor`, 'PUT', { value: 'emacs' });
    await page.waitFor('document.querySelector(\'tr[data-key="editor"] .value\')?.textContent === "emacs"', 'a change from elsewhere');
    await page.waitFor('document.activeElement === document.querySelector(\'tr[data-key="theme"] input\')', 'the input to keep focus');
    assert.equal(await page.eval('document.querySelector(\'tr[data-key="theme"] input\').value'), 'light');
    await page.press('Enter');
    await page.waitFor('document.querySelector(\'tr[data-key="theme"] .value\')?.textContent === "light"', 'the edited setting');
    assert.equal((await call(`${server.url}/api/settings`)).body.theme, 'light');
    await shoot(page, 'settings');

    await page.click('tr[data-key="theme"] [data-action=delete]');
    await page.click('#confirm-ok');
    const probe = await call(`${server.url}/api/settings/${encodeURIComponent('projdex-probe')}`, 'DELETE');
    if (probe.status === 404 && probe.body.error === 'Not found' || probe.status === 405) {
      await toastSeen(page, 'cannot delete settings');
      assert.equal((await call(`${server.url}/api/settings`)).body.theme, 'light');
    } else {
      await page.waitFor('!document.querySelector(\'tr[data-key="theme"]\')', 'the deleted setting to go');
      assert.equal((await call(`${server.url}/api/settings`)).body.theme, undefined);
    }
    assert.deepEqual(problems(page), []);
  });

  test('after a server restart the page reconnects and reloads what changed meanwhile, even when ids coincide', async (t) => {
    const dataDir = makeTree(t, {}, 'projdex-ui-data-');
    const first = await serve(t, { dataDir });
    const dir = appTree(t);
    await call(`${first.url}/api/projects`, 'POST', { name: 'before', path: dir });
    const page = await open(`${first.url}/`);
    await page.waitFor('document.body.dataset.live === "live" && document.querySelectorAll("#projects-table tbody tr").length === 1', 'the page');
    await first.close();
    await page.waitFor('document.body.dataset.live === "offline"', 'the page to notice');
    // The same data dir and port, a new server life: its ids start again, so the page's last id (1) names another
    // event there and nothing would be replayed; the new instance in `ready` makes the page reload.
    const second = await serve(t, { dataDir, port: first.port });
    const other = makeTree(t, { 'x.txt': '' }, 'projdex-ui-');
    await call(`${second.url}/api/projects`, 'POST', { name: 'while-away', path: other });
    await page.waitFor('document.body.dataset.live === "live"', 'the reconnection', 20_000);
    await page.waitFor('[...document.querySelectorAll("#projects-table tbody .name")].some((a) => a.textContent === "while-away")',
      'the project created while the page was away');
    assert.deepEqual(problems(page).filter((p) => !/ERR_CONNECTION_REFUSED|net::ERR/.test(p)), []);
  });

  test('token mode: the page asks once, keeps the token for the tab, and never puts it in a URL', async (t) => {
    const token = 'ui-test-token-0123456789';
    const server = await serve(t, { token });
    const dir = appTree(t);
    const page = await open(`${server.url}/`);
    await page.waitFor('document.querySelector("#token-dialog").open', 'the token prompt');
    await shoot(page, 'token-prompt');
    await page.type('#token-input', 'wrong');
    await page.press('Enter');
    await page.waitFor('document.querySelector("#token-dialog").open && !document.querySelector("#token-error").hidden', 'the refusal');
    await page.type('#token-input', token);
    await page.click('#token-form button[type=submit]');
    await page.waitFor('document.body.dataset.live === "live"', 'the live stream with the token');
    await page.waitFor('document.querySelector(".empty") && !document.querySelector(".empty").hidden', 'the empty list');
    assert.equal(await page.eval('sessionStorage.getItem("projdex.token")'), token);

    await page.type('#add-path', dir);
    await page.click('#add-form button[type=submit]');
    await page.waitFor('document.querySelector("#projects-table tbody tr:not([hidden]) td.tests")?.textContent === "3"', 'the project, scanned');
    const external = (await call(`${server.url}/api/projects`, 'GET', undefined, { authorization: `Bearer ${token}` })).body;
    assert.equal(external.length, 1);
    await call(`${server.url}/api/settings/x`, 'PUT', { value: '1' }, { authorization: `Bearer ${token}` });
    await page.goto(`${server.url}/#/settings`);
    await page.waitFor('document.querySelector(\'tr[data-key="x"]\')', 'settings after a reload, without asking again');
    assert.equal(await page.eval('document.querySelector("#token-dialog").open'), false);

    const urls = page.requests.map((r) => r.url);
    assert.ok(urls.some((u) => u.endsWith('/api/events')), 'the event stream was requested');
    assert.deepEqual(urls.filter((u) => u.includes(token)), []);
    const stream = page.requests.findLast((r) => r.url.endsWith('/api/events') && r.headers.Authorization);
    assert.equal(stream?.headers.Authorization, `Bearer ${token}`);
    assert.deepEqual(problems(page), []);
  });
});
