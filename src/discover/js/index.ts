import { guarded } from '../../rules/guarded.ts';
import type { Discover, FoundTest, ScanContext, TestFramework } from '../../rules/types.ts';
import { withCases } from '../../rules/with-cases.ts';
import { angular, karma } from './runners/angular.ts';
import { ava } from './runners/ava.ts';
import { bnt } from './runners/bnt.ts';
import { bun } from './runners/bun.ts';
import { countCases } from './cases.ts';
import { cypress } from './runners/cypress.ts';
import { configuredRunners, fallbackRunners } from './fallback.ts';
import { jasmine } from './runners/jasmine.ts';
import { cra, jest, kcd } from './runners/jest.ts';
import { karmaStart } from './runners/karma.ts';
import { mocha } from './runners/mocha.ts';
import { nodeTest } from './runners/node-test.ts';
import { findPackages, releasePkg } from './packages/packages.ts';
import { atRunDir } from './packages/run-dir.ts';
import { readNxWorkspace } from './nx/nx.ts';
import { playwright } from './runners/playwright.ts';
import type { Invocation, JsRunner, Pkg, RunnerRule } from './types.ts';
import { label, reachScripts, type KeptPlans, type Reached } from './scripts/reach.ts';
import { missingWhy } from './scripts/stand-in.ts';
import { borp, tap, uvu } from './runners/tap.ts';
import { tape } from './runners/tape.ts';
import { vitest } from './runners/vitest.ts';
import { wtr } from './runners/wtr.ts';
import { joinPath } from '../../rules/paths.ts';

const RULES: Partial<Record<JsRunner, RunnerRule>> = {
  jest, cra, kcd, vitest, mocha, 'node-test': nodeTest, playwright, cypress, ava, jasmine, bun, 'web-test-runner': wtr, tap, uvu, borp, tape, angular, karma, 'karma-start': karmaStart, bnt,
};
const READ_CONCURRENCY = 16;
const MAX_LISTED = 8;

/**
 * Test files of the JavaScript ecosystem's runners, as the project's `npm test` would run them: the root's
 * test script is followed as a shell program through scripts, wrappers and workspace hand-offs to each
 * reached package's own script (reach.ts); each runner call found is discovered by its rule, deepest
 * package first, and the first runner to claim a file keeps it. A package without a test script falls
 * back to the runners it configures or depends on, with a note; one whose script runs only commands
 * projdex cannot follow lists nothing, and a note says which; a workspace package
 * the command never reaches contributes nothing, and a note says so. Each followed script is recorded
 * with `ctx.follow` (command, runner, config, notes). `cases` is a static estimate (see cases.ts).
 *
 * @example
 * const tests = await discoverJs(ctx);
 * tests[0]; // { file: 'src/a.test.ts', framework: 'vitest', cases: 3 }
 */
export const discoverJs: Discover = async (ctx) => {
  const claimed = new Map<string, TestFramework>();
  const nx = await readNxWorkspace(ctx);
  const pkgs = await findPackages(ctx, nx);
  const reach = await reachScripts(pkgs, nx, ctx.perWalk('js:plans', (): KeptPlans => ({ plans: new Map() })));
  for (const n of reach.notes) ctx.note(n);
  const order = [...reach.runs].sort((x, y) => y.pkg.dir.split('/').length - x.pkg.dir.split('/').length || (x.pkg.dir < y.pkg.dir ? -1 : 1));
  for (const run of order) {
    const { pkg, plan } = run;
    const runNotes = [...plan.notes];
    for (const n of plan.notes) ctx.note(`${label(pkg)}: ${n}`);
    if (plan.followed.length > 0) runNotes.push(`followed ${plan.followed.join(', ')}`);
    let invocations = plan.invocations;
    if (invocations.length === 0 && plan.delegations.length === 0 && plan.dirs.length === 0) invocations = fallback(ctx, run, runNotes);
    else if (plan.unknown.length > 0) {
      const msg = `${label(pkg)}: ${run.standIn ?? 'the test script'} also run${run.standIn ? '' : 's'} ${[...new Set(plan.unknown)].map((u) => `\`${u}\``).join(', ')}, which projdex cannot follow; tests it runs are not listed`;
      ctx.note(msg);
      runNotes.push(msg);
    }
    for (const call of invocations) {
      // A call made in another directory (`cd e2e && jest`) is read where that runner reads it from.
      const { pkg: here, inv } = await atRunDir(pkg, call);
      const prefix = here.dir === '' ? '' : here.dir + '/';
      const rule = RULES[inv.runner];
      const info = { config: null as string | null, notes: [...runNotes] };
      if (!rule) {
        const msg = `${label(pkg)}: ${inv.runner} test discovery is not supported yet`;
        ctx.note(msg);
        ctx.follow({ package: here.dir, command: plan.command, runner: inv.runner, config: null, notes: [...info.notes, msg] });
        continue;
      }
      // A file two runners both run is one row (the first runner's); say so rather than drop it silently.
      const shared = new Map<TestFramework, string[]>();
      const files = await discoverUnit(ctx, rule, here, inv, info);
      // An empty run the rule said nothing about gets a note of its own (never an empty list in silence).
      if (files.length === 0 && info.notes.length === runNotes.length) {
        const msg = emptyRun(here, inv);
        ctx.note(msg);
        info.notes.push(msg);
      }
      const fresh: string[] = [];
      for (const full of fullPaths(ctx, here.dir, prefix, files)) {
        const owner = claimed.get(full);
        if (owner === undefined) { claimed.set(full, rule.framework); fresh.push(full); }
        else if (owner !== rule.framework) {
          const list = shared.get(owner);
          if (list) list.push(full);
          else shared.set(owner, [full]);
        }
      }
      // Counted on the helper thread while the next packages are discovered (all are counted at the end).
      ctx.countAhead?.(fresh, countCases);
      for (const [owner, files] of shared) {
        const msg = `${label(pkg)}: ${rule.framework} also runs ${files.length} file${files.length === 1 ? '' : 's'} `
          + `listed under ${owner} (one row per file), e.g. ${files[0]}`;
        ctx.note(msg);
        info.notes.push(msg);
      }
      ctx.follow({ package: here.dir, command: plan.command, runner: rule.framework, config: info.config, notes: info.notes });
      if (here !== pkg) releasePkg(here);
    }
    if (invocations.length === 0 && plan.delegations.length + plan.dirs.length > 0) {
      ctx.follow({ package: pkg.dir, command: plan.command, runner: null, config: null, notes: [...runNotes, 'hands the script to workspace packages'] });
    }
    releasePkg(pkg);
  }
  // A package the hand-offs never reach may still have its files run by a root runner (Vitest or Jest
  // projects): only those with no listed file are named.
  // Perf: every listed file's folders only when some package was not reached (a first scan of a monorepo
  // whose packages all are pays no slice per folder of each listed file).
  const listedDirs = new Set<string>();
  if (reach.unreached.length > 0) {
    for (const file of claimed.keys()) {
      for (let i = file.indexOf('/'); i !== -1; i = file.indexOf('/', i + 1)) {
        listedDirs.add(file.slice(0, i));
      }
    }
  }
  const names = reach.unreached.map((p) => p.dir).filter((dir) => !listedDirs.has(dir));
  if (names.length > 0) {
    const more = names.length > MAX_LISTED ? ` and ${names.length - MAX_LISTED} more` : '';
    ctx.note(`not reached by the test command, so not listed: ${names.slice(0, MAX_LISTED).join(', ')}${more}`);
  }
  return claimedTests(ctx, claimed);
};

/**
 * A reached package whose script runs no runner projdex knows. Without a test script at all, the
 * defaults of the runners it configures or depends on stand in (what a user running that runner would
 * get), with a note. With a script, those defaults are not what `npm test` runs: nothing is listed, and
 * the note says which command could not be followed and that the package may have tests projdex could
 * not list.
 */
function fallback(ctx: ScanContext, run: Reached, runNotes: string[]): Invocation[] {
  const { pkg, plan } = run;
  // A wrapper projdex cannot follow, around a runner configured right there: that runner's own discovery.
  const wrapped = !plan.missing && plan.unknown.length > 0 && plan.invocations.length === 0 ? configuredRunners(pkg) : [];
  const assumed = plan.missing ? fallbackRunners(pkg) : wrapped.map((w): Invocation => ({ runner: w.runner, args: [], quoted: [] }));
  const npm = run.standIn !== undefined ? run.standIn : plan.command?.startsWith('nx run ') ? `\`${plan.command}\`` : run.script === 'test' ? '`npm test`' : `\`npm run ${run.script}\``;
  const name = typeof pkg.json.name === 'string' && pkg.json.name !== '' ? pkg.json.name : pkg.dir === '' ? 'the project' : pkg.dir;
  const unknown = [...new Set(plan.unknown)].map((u) => `\`${u}\``).join(', ');
  const msg = plan.missing
    ? (assumed.length > 0 ? `${missingWhy(pkg, label(pkg))}; assumed the defaults of ${[...new Set(assumed.map((i) => i.runner))].join(', ')}`
      : `${missingWhy(pkg, label(pkg))}; no test files listed for it`)
    : wrapped.length > 0
      ? `${label(pkg)}: ${npm} runs ${unknown}, which projdex cannot follow; assumed it starts `
        + `${wrapped.map((w) => `${w.runner} (configured in ${w.where})`).join(', ')} and listed what that runner finds on its own`
    : plan.unknown.length > 0
      ? `${label(pkg)}: ${npm} runs ${unknown}, which projdex cannot follow: no tests listed for ${name}, though it may have some`
      : `${label(pkg)}: ${npm} runs no test runner projdex knows (\`${plan.command}\`): no tests listed for ${name}`;
  // A build a test step hands to a package (`pnpm --filter app build`) is no test run: its record says
  // so, without a scan note that would read as "this package's tests were missed".
  const build = run.via !== null && !/test|spec|e2e/i.test(run.script) && !plan.missing && plan.unknown.length === 0;
  if (!build) ctx.note(msg);
  runNotes.push(msg);
  if (assumed.length === 0) ctx.follow({ package: pkg.dir, command: plan.command, runner: null, config: null, notes: runNotes });
  return assumed;
}

/**
 * `rule.discover` over one package, answered from its record while everything it read and asked of the tree
 * is as it was (scan/unit-memo.ts): a rescan where one package's config moved, or a file was added to it,
 * runs that package's rule only. Its notes and config read land in `info` either way.
 */
async function discoverUnit(ctx: ScanContext, rule: RunnerRule, pkg: Pkg, inv: Invocation,
  info: { config: string | null; notes: string[] }): Promise<readonly string[]> {
  // Everything the rule is given besides the tree and its reads.
  const key = JSON.stringify([rule.framework, pkg.dir, inv, pkg.json, pkg.nx ?? null]);
  // A rule sees the tree only through its view and its package: on another walk (a file added elsewhere),
  // its record still answers while what it asked of both holds (scan/unit-tree.ts).
  const members = { files: () => pkg.files, dirs: () => pkg.dirs };
  const found = await ctx.unit(key, async (view) => {
    const own = { config: null as string | null, notes: [] as string[] };
    const files = await guarded(view, `${label(pkg)}: ${rule.framework}`, () => rule.discover(recording(view, own), packageOn(view, pkg), inv));
    return { files, config: own.config, notes: own.notes };
  }, { members });
  info.config ??= found.config;
  info.notes.push(...found.notes);
  return found.files;
}

/**
 * `pkg` seen through `view`: its reads and `has` by package-relative path go through the view, and its files
 * and directories are told to the unit as used, so a unit's record holds all it asked of the tree.
 */
function packageOn(view: ScanContext, pkg: Pkg): Pkg {
  const prefix = pkg.dir === '' ? '' : pkg.dir + '/';
  const seen: Pkg = Object.create(pkg);
  Object.defineProperties(seen, {
    read: { value: (rel: string) => view.read(prefix + rel) },
    has: { value: (rel: string) => view.has(prefix + rel) },
    files: { get: () => { view.usedMembers('files', pkg.files); return pkg.files; } },
    dirs: { get: () => { view.usedMembers('dirs', pkg.dirs); return pkg.dirs; } },
  });
  return seen;
}

/** A view of the context whose notes and config reads are also recorded for one followed run. */
function recording(ctx: ScanContext, info: { config: string | null; notes: string[] }): ScanContext {
  const view: ScanContext = Object.create(ctx);
  view.note = (m: string) => { info.notes.push(m); ctx.note(m); };
  Object.assign(view, { configRead: (file: string) => { info.config ??= file; } });
  return view;
}

/**
 * The note for a runner call that lists nothing: the paths it names that are not in the tree (a build
 * output such as `dist/test/*.js`, made before the run) are named, since that is the usual cause.
 */
function emptyRun(pkg: Pkg, inv: Invocation): string {
  const absent = inv.args.filter((a) => !a.startsWith('-') && /\//.test(a))
    .map((a) => a.replace(/^\.\//, '').split('/')[0]!)
    .filter((top) => top !== '' && !/[*?{[]/.test(top) && !pkg.dirs.has(top) && !pkg.has(top));
  const why = absent.length > 0 ? `: ${[...new Set(absent)].join(', ')} is not in the tree (it may be built before the run)` : '';
  return `${label(pkg)}: ${inv.runner}${inv.args.length > 0 ? ` ${inv.args.join(' ')}` : ''} matches no file${why}`;
}

/**
 * Whether joinPath would leave a relative path as it is (no empty, `.` or `..` segment). Perf: segment by
 * segment without a regular expression (asked of every claimed file on every scan).
 */
function isNormal(path: string): boolean {
  for (let start = 0; ;) {
    const slash = path.indexOf('/', start);
    const length = (slash === -1 ? path.length : slash) - start;
    if (length === 0) return false;
    if (length <= 2 && path.charCodeAt(start) === DOT
      && (length === 1 || path.charCodeAt(start + 1) === DOT)) return false;
    if (slash === -1) return true;
    start = slash + 1;
  }
}

const DOT = 0x2e;

/**
 * A rule's package-relative files as paths from the root. Perf: rules return normalized paths, so a prefix
 * does what joinPath would; and a unit answered from its record returns the very array it returned before,
 * whose paths are taken as they were made over this walk (the same strings, so `claimedTests` compares
 * them by identity).
 */
function fullPaths(ctx: ScanContext, dir: string, prefix: string, files: readonly string[]): readonly string[] {
  const made = ctx.perWalk('js:full-paths',
    () => new WeakMap<readonly string[], { dir: string; paths: string[] }>());
  const known = made.get(files);
  if (known && known.dir === dir) return known.paths;
  const paths = files.map((file) => (isNormal(file) ? prefix + file : joinPath(dir, file)));
  made.set(files, { dir, paths });
  return paths;
}

/**
 * Reads each claimed file (bounded concurrency) to estimate its cases; sorted by path. Perf: the paths are
 * sorted before counting, so rows come out in order; and a rescan over this walk whose runs claimed the very
 * same paths in the same order (each unit answered from its record) takes the order it sorted last time.
 */
async function claimedTests(ctx: ScanContext, claimed: Map<string, TestFramework>): Promise<FoundTest[]> {
  const last = ctx.perWalk('js:claimed-order', () => ({ claimed: [] as string[], sorted: [] as string[] }));
  let same = last.claimed.length === claimed.size;
  if (same) {
    let i = 0;
    for (const file of claimed.keys()) if (file !== last.claimed[i++]) { same = false; break; }
  }
  if (!same) {
    last.claimed = [...claimed.keys()];
    // The default sort: UTF-16 code units, the order of `<`.
    last.sorted = [...last.claimed].sort();
  }
  return withCases(ctx, last.sorted, (file) => claimed.get(file)!, countCases,
    { concurrency: READ_CONCURRENCY, rowPerFile: true });
}
