// Summarises V8 CPU profiles (from `node --cpu-prof`, e.g. `node bench/run.ts --profile`):
// the functions and the files with the most self time. Usage: node bench/profile.ts DIR|FILE... [--top N]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '20' } } });
const top = Number(values.top);
const files = positionals.flatMap((p) => (statSync(p).isDirectory() ? readdirSync(p).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(p, f)) : [p]));
const root = join(import.meta.dirname, '..');

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const fn = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = url.startsWith('file://') ? relative(root, new URL(url).pathname) : url || '(native)';
    const key = `${functionName || '(anonymous)'}  ${where}${url ? `:${lineNumber + 1}` : ''}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    byFile.set(where, (byFile.get(where) ?? 0) + us);
  }
  const show = (title: string, map: Map<string, number>): void => {
    process.stdout.write(`  ${title}\n`);
    for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      process.stdout.write(`    ${(us / 1000).toFixed(0).padStart(7)} ms ${((us / total) * 100).toFixed(1).padStart(5)}%  ${key}\n`);
    }
  };
  // The longest stretch without an idle sample: what blocked the event loop the longest.
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  let best = { from: 0, to: 0, us: 0 };
  for (let i = 0, from = 0, us = 0; i < profile.samples.length; i++) {
    if (idle.has(profile.samples[i]!)) { from = i + 1; us = 0; continue; }
    us += profile.timeDeltas[i] ?? 0;
    if (us > best.us) best = { from, to: i, us };
  }
  const parents = new Map<number, ProfileNode>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parents.set(c, n);
  const stretch = new Map<string, number>();
  for (let i = best.from; i <= best.to; i++) {
    let node = byId.get(profile.samples[i]!);
    // Attribute each sample to its innermost frame under src/, the code that owns the stall.
    while (node && !node.callFrame.url.includes('/src/')) node = parents.get(node.id);
    const key = node ? `${node.callFrame.functionName || '(anonymous)'}  ${relative(root, new URL(node.callFrame.url).pathname)}:${node.callFrame.lineNumber + 1}` : '(outside src/)';
    stretch.set(key, (stretch.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  process.stdout.write(`${relative(process.cwd(), file)}: ${(total / 1000).toFixed(0)} ms sampled\n`);
  show('self time by function', fn);
  show('self time by file', byFile);
  show(`longest busy stretch, ${(best.us / 1000).toFixed(0)} ms, by innermost src/ frame`, stretch);
}

