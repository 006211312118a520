import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { call } from './index.ts';

/** Polls `GET /api/runs/:id` until the run has ended; fails after `ms`. */
export async function waitRun(url: string, id: number, ms = 60_000): Promise<any> {
  const until = Date.now() + ms;
  for (;;) {
    const { body } = await call(`${url}/api/runs/${id}`);
    if (body.status !== 'running' && body.status !== 'queued') return body;
    if (Date.now() > until) throw new Error(`run ${id} still ${body.status} after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A node:test project: one passing, one failing, one skipped file (and a todo). */
export const NODE_PROJECT: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'fx', scripts: { test: 'node --test' } }),
  'test/pass.test.mjs': "import test from 'node:test';\ntest('ok', () => {});\ntest('ok too', () => {});\n",
  'test/fail.test.mjs': "import test from 'node:test';\nimport assert from 'node:assert';\n"
    + "test('adds', () => { assert.equal(1 + 1, 3); });\ntest('fine', () => {});\n",
  'test/skip.test.mjs': "import test from 'node:test';\ntest('later', { skip: 'not yet' }, () => {});\ntest.todo('some day');\n",
};

/**
 * Live processes (not zombies: a killed orphan waits for its reaper) whose command line mentions `marker`
 * or whose working directory is under it, read from /proc.
 */
export function processesMentioning(marker: string): Array<{ pid: number; cmdline: string }> {
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const state = readFileSync(`/proc/${name}/stat`, 'utf8').replace(/^.*\) /, '')[0];
      let cwd = '';
      try { cwd = readlinkSync(`/proc/${name}/cwd`); } catch { /* another user's process */ }
      if ((cmdline.includes(marker) || cwd.startsWith(marker)) && state !== 'Z') found.push({ pid: Number(name), cmdline });
    } catch { /* the process ended while being read */ }
  }
  return found;
}

/** Whether a process runs (a zombie counts as ended). */
export function running(pid: number): boolean {
  try { return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0] !== 'Z'; } catch { return false; }
}
