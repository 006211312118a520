/**
 * 12,000 test files under 3.8 KB of folder names: 46 M characters of paths, past the default budget of the
 * walk (32 Mi). Unbounded, the answer held every path (50k such files: a 189 MB answer and 800 MB in the
 * server; 160k: every scan a 500). Now the walk stops at the budget with a note, and the server answers.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MAX_PATH_CHARS } from '../../src/scan/walk/walk.ts';
import { call, makeTree, serve } from '../helpers/index.ts';
import { deepLongFolders } from '../helpers/hostile-trees.ts';
import { probeHealth } from '../helpers/health.ts';

test('12k tests under deep long folder names: the default path budget cuts the walk, with a note', { timeout: 300_000 }, async (t) => {
  const root = makeTree(t, { 'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29' } }) });
  const deep = deepLongFolders(root, 15);
  for (let i = 0; i < 12_000; i++) writeFileSync(join(root, deep, `t${i}.test.js`), '');
  // A database file, as the CLI's: a big save's last transaction then runs in its own thread.
  const db = join(makeTree(t), 'projdex.db');
  const { url } = await serve(t, { db, scanWorker: { deadlineMs: 240_000, processes: 1 } });
  const { body: project } = await call(`${url}/api/projects`, 'POST', { name: 'deep', path: root });

  const health = probeHealth(url);
  const res = await fetch(`${url}/api/projects/${project.id}/scan`, { method: 'POST' });
  const text = await res.text();
  const worst = await health.stop();
  assert.equal(res.status, 200, text.slice(0, 300));
  const answer = JSON.parse(text) as { tests: Array<{ file_path: string }>; truncated: string | null };
  assert.match(answer.truncated ?? '', /path length limit reached/);
  const chars = answer.tests.reduce((sum, x) => sum + x.file_path.length, 0);
  assert.ok(chars <= MAX_PATH_CHARS && answer.tests.length < 12_000, `${answer.tests.length} tests, ${chars} characters`);
  assert.ok(text.length <= MAX_PATH_CHARS + answer.tests.length * 400, `${text.length} bytes answered`);
  // The bar is 100 ms; the margin is for a loaded machine (two cores held busy), not for the scan.
  assert.ok(worst < 1_000, `/health waited ${worst.toFixed(0)} ms`);
  t.diagnostic(`${answer.tests.length} tests, ${(text.length / 1e6).toFixed(1)} MB answered; worst /health wait ${worst.toFixed(1)} ms`);
});
