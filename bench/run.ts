// projdex benchmarks: `npm run bench` (or `node bench/run.ts [--quick] [--large] [--only a,b] [--profile] [--dist]`).
// Every benchmark runs projdex and its baseline alternately in child processes and prints one table of
// medians and ratios. See bench/README.md for what each row means.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { useBuilt } from './procs.ts';
import { seedStore } from './seed.ts';
import { formatTable, type Row } from './stats.ts';
import { compareEndpoints } from './suites/http.ts';
import { dashboardSuite } from './suites/dashboard.ts';
import { healthSuite } from './suites/health.ts';
import { layersSuite } from './suites/layers.ts';
import { saveSuite } from './suites/save.ts';
import { scaleSuite } from './suites/scale.ts';
import { scanSuite } from './suites/scan.ts';
import { scanAllSuite } from './suites/scan-all.ts';
import { startupSuite } from './suites/startup.ts';
import { watchSuite } from './suites/watch.ts';
import { writesSuite } from './suites/writes.ts';
import { CACHE_DIR } from './tree.ts';

const SUITES = ['scan', 'layers', 'scan-all', 'http', 'writes', 'health', 'save', 'startup', 'scale', 'dashboard', 'watch'] as const;

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    large: { type: 'boolean', default: false },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    dist: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  process.stdout.write(`Usage: node bench/run.ts [--quick] [--large] [--only ${SUITES.join(',')}] [--rounds N] [--profile] [--dist]\n`);
  process.exit(0);
}
const only = new Set(values.only?.split(',') ?? SUITES);
for (const name of only) if (!(SUITES as readonly string[]).includes(name)) throw new TypeError(`Unknown suite \`${name}\`; one of ${SUITES.join(', ')}`);

const quick = values.quick;
const rounds = values.rounds ? Number(values.rounds) : quick ? 2 : 5;
const durationMs = quick ? 300 : 1000;
const log = (line: string): void => { process.stderr.write(`  ${line}\n`); };
// --profile: the projdex children of the scan and http suites write CPU profiles (see bench/profile.ts).
const profileDir = join(CACHE_DIR, 'profiles');
const nodeArgs = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
if (values.profile) mkdirSync(profileDir, { recursive: true });

// The generated trees are kept in this checkout (`.bench/trees`): without a ceiling there, each scan of one
// would also run `git status` over projdex's own repository, a cost no row names (the git rows scan a tree
// that is a repository of its own). The servers and git children this run starts inherit it.
process.env.GIT_CEILING_DIRECTORIES = [join(CACHE_DIR, 'trees'), process.env.GIT_CEILING_DIRECTORIES]
  .filter((dir) => dir !== undefined && dir !== '').join(':');

// --dist: the built package (npm run build first), as `npx projdex` runs it: no type stripping in the server
// and its scan processes, which changes their memory and start-up.
if (values.dist) {
  log('building dist/ (npm run build)');
  execFileSync('npm', ['run', 'build'], { cwd: join(import.meta.dirname, '..'), stdio: ['ignore', 'ignore', 'inherit'] });
  useBuilt();
}

const rows: Row[] = [];
const started = performance.now();

if (only.has('scan')) {
  const sizes = quick ? [10_000] : [10_000, 100_000, ...(values.large ? [1_000_000] : [])];
  rows.push(...await scanSuite({ sizes, rounds, nodeArgs, log }));
}
if (only.has('layers')) {
  rows.push(...await layersSuite({ size: quick ? 10_000 : 100_000, rounds, log }));
}
if (only.has('scan-all')) {
  rows.push(...await scanAllSuite({ rounds, projects: quick ? 4 : 20, nodeArgs, log }));
}
if (only.has('http')) {
  const dataDir = join(tmpdir(), `projdex-bench-http-${process.pid}`);
  try {
    seedStore(dataDir, { projects: 20, testsEach: 50, firstTests: 10_000 });
    const concurrency = quick ? [8] : [1, 8, 64];
    rows.push(...await compareEndpoints(dataDir, [
      { name: 'GET /api/projects (20)', path: '/api/projects', concurrency, targets: { 8: 0.8 } },
      { name: 'GET /api/projects/1/tests (10k)', path: '/api/projects/1/tests', concurrency },
    ], { rounds: quick ? 1 : 3, durationMs, nodeArgs, log }));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
if (only.has('writes')) {
  const dataDir = join(tmpdir(), `projdex-bench-writes-${process.pid}`);
  try {
    mkdirSync(dataDir, { recursive: true });
    rows.push(...await writesSuite(dataDir, { concurrency: quick ? [50] : [1, 50], rounds: quick ? 1 : 3, durationMs, log }));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
if (only.has('health')) {
  const variants = [{ name: 'full rescans', kind: 'full' }, { name: 'first scans', kind: 'first' }] as const;
  rows.push(...await healthSuite({ size: quick ? 10_000 : 100_000, rounds: quick ? 2 : 5, variants, nodeArgs, log }));
}
if (only.has('save')) rows.push(...await saveSuite({ tests: quick ? 50_000 : 200_000, rounds: quick ? 1 : 3, log }));
if (only.has('watch')) rows.push(...await watchSuite({ sizes: quick ? [10_000] : [10_000, 100_000], rounds: quick ? 3 : 5, nodeArgs, log }));
if (only.has('startup')) rows.push(...await startupSuite({ rounds: quick ? 3 : 9, log }));
if (only.has('dashboard')) rows.push(...await dashboardSuite({ rounds: quick ? 3 : 7, log }));
if (only.has('scale') && !quick) rows.push(...await scaleSuite({ rounds: 3, durationMs, log }));

process.stdout.write(`\nprojdex bench (${quick ? 'quick' : values.large ? 'large' : 'default'}${values.dist ? ', dist/' : ''}; Node ${process.versions.node}; ` +
  `median of rounds; ratio = projdex / baseline) in ${((performance.now() - started) / 1000).toFixed(0)} s\n\n`);
process.stdout.write(formatTable(rows) + '\n');
if (values.profile) process.stdout.write(`\nCPU profiles in ${profileDir}; summarise with: node bench/profile.ts ${profileDir}\n`);
