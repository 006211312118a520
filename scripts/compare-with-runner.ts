/**
 * Diffs projdex's scan of a directory against the real runners' own listing commands, for every runner
 * that is installed (see scripts/compare/*.ts for where each is looked up). A checking tool only: the
 * runners are never dependencies of projdex.
 *
 *   node scripts/compare-with-runner.ts DIR [DIR ...] [--framework jest]
 *
 * Prints one line per (dir, runner) with anything to say: `same (N files)`, `skipped`, `not used` (the
 * runner would list files, but projdex judged the project's test command runs another runner) or the
 * diff (`+ file` only the runner lists, `- file` only projdex lists), or `FAILED` (the runner ran but could
 * not list: an import or compile error, no network). Exits 1 when any diff was found, else 3 when a runner
 * failed, else 0.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { scan } from '../src/scan/index.ts';
import { RunnerFailed } from './compare/failed.ts';

interface RunnerAdapter { framework: string; list(dir: string): Promise<string[] | null> }

const { values, positionals } = parseArgs({ allowPositionals: true, options: { framework: { type: 'string' } } });
const adapters: RunnerAdapter[] = [];
for (const family of ['js', 'others']) {
  const file = new URL(`./compare/${family}.ts`, import.meta.url);
  if (existsSync(file)) adapters.push(...((await import(file.href)) as { runners: RunnerAdapter[] }).runners);
}

let differences = 0;
let failures = 0;
for (const dir of positionals.map((d) => resolve(d))) {
  const { tests } = await scan(dir);
  for (const adapter of adapters) {
    if (values.framework && adapter.framework !== values.framework) continue;
    const ours = tests.filter((t) => t.framework === adapter.framework).map((t) => t.file).sort();
    let theirs: string[] | null;
    try {
      theirs = await adapter.list(dir);
    } catch (error) {
      // A runner that could not list is no ground truth: said as such, never as a difference.
      const why = error instanceof RunnerFailed ? error.message : String(error);
      if (ours.length === 0) {
        console.log(`${dir} ${adapter.framework}: not used by the project's test command (the runner alone failed there: ${why})`);
        continue;
      }
      failures++;
      console.log(`${dir} ${adapter.framework}: FAILED (the runner did not list its tests: ${why}${ours.length ? `; projdex lists ${ours.length}` : ''})`);
      continue;
    }
    if (theirs === null) {
      // Said when projdex lists files for it: the runner it followed is the one this machine lacks.
      const listed = ours.length > 0 ? `; projdex lists ${ours.length}` : '';
      console.log(`${dir} ${adapter.framework}: skipped (runner not installed or not applicable${listed})`);
      continue;
    }
    if (ours.length === 0 && theirs.length === 0) continue;
    if (ours.length === 0) {
      // The runner would find files, but projdex judged that the project's test command does not use it.
      console.log(`${dir} ${adapter.framework}: not used by the project's test command (the runner alone would list ${theirs.length})`);
      continue;
    }
    const onlyTheirs = theirs.filter((f) => !ours.includes(f));
    const onlyOurs = ours.filter((f) => !theirs.includes(f));
    if (onlyTheirs.length === 0 && onlyOurs.length === 0) {
      console.log(`${dir} ${adapter.framework}: same (${ours.length} files)`);
      continue;
    }
    differences++;
    console.log(`${dir} ${adapter.framework}: DIFFERENT`);
    for (const f of onlyTheirs) console.log(`  + ${f}`);
    for (const f of onlyOurs) console.log(`  - ${f}`);
  }
}
if (failures > 0) console.log(`${failures} runner${failures === 1 ? '' : 's'} failed to list (not counted as differences)`);
process.exitCode = differences > 0 ? 1 : failures > 0 ? 3 : 0;
