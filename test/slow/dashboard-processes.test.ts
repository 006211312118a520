// The dashboard's git state, Start/Stop with output, and live-port marks, in a real Chromium against the real
// server, with a real dev script (a node:http server) started and stopped from the page.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, suite, test } from 'node:test';
import { haveChromium, launch, type Browser } from '../helpers/cdp.ts';
import { call, makeTree, serve } from '../helpers/index.ts';
import { gitEnv } from '../../src/core/git.ts';
import { freePort } from '../helpers/processes.ts';

const missing = haveChromium() ? false : 'Chromium is not installed (apt-get install chromium); browser tests skipped';

suite('the dashboard: git, processes, live ports', { skip: missing || (process.platform !== 'linux' && 'reads /proc'), timeout: 180_000 }, () => {
  let browser: Browser;
  before(async () => { browser = await launch(); });
  after(async () => { await browser?.close(); });

  test('git on the row and the page, Start shows output, the port is marked live, Stop ends the group', async (t) => {
    const port = await freePort();
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { dev: `PORT=${port} node server.js` } }),
      'server.js': "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening on ' + process.env.PORT));\n",
    }, 'projdex-ui-');
    const env = { ...gitEnv(process.env), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
    const git = (...args: string[]): void => { execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: root, env, stdio: 'ignore' }); };
    git('init', '-b', 'main');
    git('add', '.');
    git('commit', '-m', 'one');
    execFileSync('sh', ['-c', 'echo "// changed" >> server.js'], { cwd: root });
    const server = await serve(t);
    await call(`${server.url}/api/projects`, 'POST', { name: 'web', path: root });
    await call(`${server.url}/api/projects/1/scan`, 'POST');

    const page = await browser.newPage();
    t.after(() => page.close());
    await page.goto(`${server.url}/#/`);
    await page.waitFor('document.querySelector("#projects-table .git.dirty")?.textContent === "main*"', 'the git mark on the row');
    await page.goto(`${server.url}/#/project/1`);
    assert.equal(await page.waitFor('document.querySelector("#project-git")?.textContent', 'the git fact'), 'main, uncommitted changes');

    // The click lands at coordinates measured just before it: every section above the button (tests, runs,
    // ports, each loaded on its own) must be drawn first, or the button moves down under the pointer.
    await page.waitFor(`['The last scan found no test files', 'Never run.', '${port}\\tlisten', 'Nothing started yet.']
      .every((text) => document.querySelector('main').innerText.includes(text))`, 'the project page drawn whole');
    await page.click('[data-action="start"]');
    await page.waitFor(`document.querySelector(".process.running .output")?.textContent.includes("listening on ${port}")`, 'the output', 20_000);
    const pid = (await call(`${server.url}/api/processes/1`)).body.pid as number;

    await page.goto(`${server.url}/#/ports`);
    assert.equal(await page.waitFor(`document.querySelector('[data-port="${port}"] .badge.held')?.textContent`, 'the live mark'), `live: pid ${(await call(`${server.url}/api/ports?live=1`)).body[0].live.pid} · web`);

    await page.goto(`${server.url}/#/project/1`);
    await page.click('[data-action="stop"]');
    await page.waitFor('document.querySelector(".process.stopped")', 'the stopped process', 20_000);
    assert.throws(() => process.kill(-pid, 0), { code: 'ESRCH' }, 'no process of the group is left');
    assert.deepEqual(page.problems, []);
  });
});
