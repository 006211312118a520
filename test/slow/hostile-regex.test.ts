/**
 * Project regexes applied in places that once had no guard: the config evaluator's `.replace`, uvu's
 * pattern, ExUnit's test_load_filters and `pnpm run /re/`. Each pattern below holds a lookahead, so V8's
 * linear engine cannot take over: unguarded, it backtracks for hours and the scan process is killed at its
 * deadline (504). Guarded, the scan answers at once with a note.
 */
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { call, makeTree, serve } from '../helpers/index.ts';

const A = 'a'.repeat(40);
const BOMB = '(?=(a+)+b)';

const PROJECTS: Record<string, { files: Record<string, string>; note: RegExp }> = {
  'config .replace': {
    files: {
      'package.json': JSON.stringify({ scripts: { test: 'vitest' }, devDependencies: { vitest: '^3.0.0' } }),
      'vitest.config.mjs': `export default { test: { include: ['${A}'.replace(/${BOMB}/, 'x')] } };`,
      'src/a.test.ts': '',
    },
    note: /regex "\(\?=\(a\+\)\+b\)" in a config is not used/,
  },
  'uvu pattern': {
    files: { 'package.json': JSON.stringify({ scripts: { test: `uvu tests "${BOMB}"` }, devDependencies: { uvu: '^0.5.0' } }), [`tests/${A}!.js`]: '' },
    note: /uvu: pattern .* is not used/,
  },
  'ExUnit test_load_filters': {
    files: { 'mix.exs': `def project do\n  [app: :a, test_load_filters: [~r/${BOMB}/]]\nend\n`, [`test/${A}!.exs`]: '' },
    note: /test_load_filters .* is not used/,
  },
  'pnpm run /re/': {
    files: { 'package.json': JSON.stringify({ scripts: { test: `pnpm run "/${BOMB}/"`, [A + '!']: 'vitest' }, devDependencies: { vitest: '^3.0.0' } }) },
    note: /pnpm run .* is not followed/,
  },
};

suite('project regexes are guarded wherever they are applied', { timeout: 200_000 }, () => {
  for (const [name, { files, note }] of Object.entries(PROJECTS)) {
    test(name, async (t) => {
      const root = makeTree(t, files);
      // The deadline is the bound: an unguarded pattern runs into it (a 504), whatever the machine's speed.
      const { url } = await serve(t, { scanWorker: { deadlineMs: 20_000, processes: 1 } });
      await call(`${url}/api/projects`, 'POST', { name: 'bomb', path: root });
      const res = await call(`${url}/api/projects/1/scan`, 'POST');
      assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
      assert.match(res.body.notes.join('\n'), note);
    });
  }
});
