// /health latency while a test run prints 10,000 lines, beside the same loop on an idle server:
// `node bench/runs-health.ts [rounds]`. Sequential requests, one connection at a time, as a client polls.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../src/index.ts';

const rounds = Number(process.argv[2] ?? 3);
const root = realpathSync(mkdtempSync(join(tmpdir(), 'projdex-bench-runs-')));
mkdirSync(join(root, 'test'));
writeFileSync(join(root, 'package.json'), JSON.stringify({ scripts: { test: 'node --test' } }));
// 10,000 lines of 160 bytes over about two seconds: 500 lines, then 100 ms.
writeFileSync(join(root, 'test', 'loud.test.mjs'), `import test from 'node:test';
test('loud', async () => {
  for (let i = 0; i < 10000; i++) {
    process.stdout.write('line ' + i + ' ' + 'x'.repeat(150) + '\\n');
    if (i % 500 === 0) await new Promise((r) => setTimeout(r, 100));
  }
});
`);

const summary = (label: string, ms: number[]): string => {
  ms.sort((a, b) => a - b);
  const q = (f: number): string => ms[Math.min(ms.length - 1, Math.floor(ms.length * f))]!.toFixed(2);
  return `${label.padEnd(14)} requests ${String(ms.length).padStart(5)}  p50 ${q(0.5)} ms  p99 ${q(0.99)} ms  max ${ms.at(-1)!.toFixed(2)} ms`;
};
const health = async (url: string): Promise<number> => {
  const t0 = performance.now();
  await (await fetch(`${url}/health`)).text();
  return performance.now() - t0;
};

const server = await startServer({ port: 0 });
try {
  const json = { 'content-type': 'application/json' };
  const project = await (await fetch(`${server.url}/api/projects`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'loud', path: root }) })).json() as { id: number };
  await fetch(`${server.url}/api/projects/${project.id}/scan`, { method: 'POST' });
  for (let round = 1; round <= rounds; round++) {
    const idle: number[] = [];
    for (const end = Date.now() + 2000; Date.now() < end;) idle.push(await health(server.url));
    console.log(summary(`idle #${round}`, idle));
    const run = await (await fetch(`${server.url}/api/projects/${project.id}/runs`, { method: 'POST' })).json() as { id: number };
    const during: number[] = [];
    let over = false;
    const watch = (async () => {
      while (!over) {
        const record = await (await fetch(`${server.url}/api/runs/${run.id}`)).json() as { status: string };
        over = record.status !== 'running' && record.status !== 'queued';
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    while (!over) during.push(await health(server.url));
    await watch;
    console.log(summary(`during run #${round}`, during));
  }
} finally {
  await server.close();
  rmSync(root, { recursive: true, force: true });
}
