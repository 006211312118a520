// What the dashboard says about the registry, read in a real Chromium against the real server: shared
// ports marked, a summary line, one row per port, "Add all" in the CLI's words, the keys projdex reads.
import assert from 'node:assert/strict';
import { after, before, suite, test } from 'node:test';
import { join } from 'node:path';
import { CHROMIUM, haveChromium, launch, type Browser, type Page } from '../helpers/cdp.ts';
import { call, makeTree, serve } from '../helpers/index.ts';

const missing = haveChromium() ? false : 'Chromium is not installed (apt-get install chromium); browser tests skipped';
if (missing && (process.env.CI || process.env.PROJDEX_REQUIRE_BROWSER)) throw new Error(`CI must run the browser tests: ${CHROMIUM} is missing`);

const app = (port: number, tests: number): Record<string, string> => {
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ scripts: { dev: `vite --port ${port}`, start: `vite --port ${port}`, test: 'node --test' } }),
    '.env': `PORT=${port}\n`,
  };
  for (let i = 0; i < tests; i++) files[`test/t${i}.test.js`] = "import { test } from 'node:test';\ntest('a', () => {});\ntest('b', () => {});\n";
  return files;
};

const toastSeen = (page: Page, pattern: string): Promise<string> =>
  page.waitFor(`[...document.querySelectorAll('.toast')].map((t) => t.textContent).find((t) => new RegExp(${JSON.stringify(pattern)}).test(t))`, `a toast matching /${pattern}/`);

suite('the dashboard tells the truth', { skip: missing, timeout: 180_000 }, () => {
  let browser: Browser;
  before(async () => { browser = await launch(); });
  after(async () => { await browser?.close(); });

  test('collisions, summary, row progress, ports by port, Add all, settings keys', async (t) => {
    const server = await serve(t);
    const root = makeTree(t, {
      ...Object.fromEntries(Object.entries(app(5173, 2)).map(([k, v]) => [`web/${k}`, v])),
      ...Object.fromEntries(Object.entries(app(5173, 1)).map(([k, v]) => [`admin/${k}`, v])),
      ...Object.fromEntries(Object.entries(app(3000, 0)).map(([k, v]) => [`api/${k}`, v])),
      'more/one/go.mod': 'module one\n', 'more/two/Gemfile': "source 'https://rubygems.org'\n",
    }, 'projdex-ui-');
    const ids: number[] = [];
    for (const name of ['web', 'admin', 'api']) {
      ids.push((await call(`${server.url}/api/projects`, 'POST', { name, path: join(root, name) })).body.id);
    }
    assert.equal((await call(`${server.url}/api/projects/scan/all`, 'POST')).status, 200);
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    await page.waitFor('document.body.dataset.live === "live"', 'the live stream');

    await page.waitFor('document.querySelector("#projects-summary")?.textContent.includes("test files")', 'the summary line');
    assert.equal(await page.text('#projects-summary'), '3 projects · 3 test files · 6 cases · 1 port collision');
    assert.equal(await page.text(`tr[data-id="${ids[0]}"] td.ports .collision`), '5173!');
    assert.equal(await page.text(`tr[data-id="${ids[2]}"] td.ports`), '3000');
    assert.equal(await page.eval(`document.querySelectorAll('tr[data-id="${ids[2]}"] .collision').length`), 0);

    // A scan that runs a while shows what it has walked and found on its row.
    server.events.emit('scan.started', { id: ids[2], name: 'api', path: join(root, 'api') });
    server.events.emit('scan.progress', { id: ids[2], files: 1234, tests: 5 });
    await page.waitFor(`document.querySelector('tr[data-id="${ids[2]}"] .progress')?.textContent.includes("1,234")`, 'row progress');
    assert.equal(await page.text(`tr[data-id="${ids[2]}"] .progress`), 'scanning… 1,234 files, 5 tests');
    server.events.emit('scan.finished', { id: ids[2], testsFound: 0, truncated: null, notes: 0 });

    // "Add all" with the CLI's default depth, reported as the CLI reports it.
    assert.deepEqual(await page.eval('[document.querySelector("#discover-depth").value, document.querySelector("#discover-depth").max]'), ['4', '16']);
    await page.type('#discover-root', root);
    await page.click('#discover-form button[type=submit]');
    await toastSeen(page, '^2 added, 3 already registered under ');

    // The project page: one row per port with every script and file that names it.
    await page.goto(`${server.url}/#/project/${ids[0]}`);
    await page.waitFor('document.querySelectorAll("#project-ports tbody tr").length > 0', 'the ports table');
    const rows = await page.eval<string[][]>('[...document.querySelectorAll("#project-ports tbody tr")].map((tr) => [...tr.cells].map((c) => c.textContent))');
    assert.deepEqual(rows, [['5173', 'listen', 'dev, start', '.env, package.json']]);
    assert.equal((await call(`${server.url}/api/projects/${ids[0]}/ports`)).body.length, 3, 'the API has a row per source and script');

    // Settings: the keys projdex reads, and a value it cannot use is refused and not stored.
    await page.goto(`${server.url}/#/settings`);
    await page.waitFor('document.querySelector("#known-settings dt")', 'the keys projdex reads');
    assert.equal(await page.text('#known-settings dt'), 'watch');
    assert.match(await page.text('#known-settings dd') ?? '', /^Rescan projects when their files change.*Values: on or off/);
    await page.type('#setting-key', 'watch');
    await page.type('#setting-value', 'maybe');
    await page.click('#setting-form button[type=submit]');
    await toastSeen(page, 'Could not save watch: watch must be on or off');
    assert.deepEqual((await call(`${server.url}/api/settings`)).body, {});
  });
});
