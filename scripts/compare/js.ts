/**
 * Adapters that ask the real JS runners which files they would run, for comparison with projdex's scan.
 * Runners come from /tmp/projdex-runners (env PROJDEX_RUNNERS_DIR overrides; .ci/run points it at the
 * runners it installs), installed with `npm i jest ts-jest typescript vitest mocha @playwright/test tap uvu
 * borp` (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1).
 * A project whose dependency range pins another major (`"vitest": "^3.2.0"`) is listed by an install
 * of that major in RUNNERS/v<major> when there is one (`cd RUNNERS/v3 && npm i vitest@3`). A directory without
 * its own node_modules is copied to a temp dir with node_modules linked to the runners' install, so
 * presets and `vitest/config` imports resolve. Nothing here is part of projdex itself.
 */
import { execFile } from 'node:child_process';
import { RunnerFailed } from './failed.ts';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const RUNNERS = process.env.PROJDEX_RUNNERS_DIR ?? '/tmp/projdex-runners';
const MODULES = join(RUNNERS, 'node_modules');

/** package.json of `dir`, or {} when absent or broken. */
function manifest(dir: string): { scripts?: Record<string, string>; dependencies?: Record<string, string>; devDependencies?: Record<string, string> } {
  try { return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')); } catch { return {}; }
}

/** The node_modules holding `pkg` in the major version `dir` asks for, falling back to the default install. */
function modulesFor(dir: string, pkg: string): string {
  const { dependencies = {}, devDependencies = {} } = manifest(dir);
  const major = /^[\^~>=]*\s*(\d+)/.exec(devDependencies[pkg] ?? dependencies[pkg] ?? '')?.[1];
  const pinned = major === undefined ? undefined : join(RUNNERS, `v${major}`, 'node_modules');
  return pinned !== undefined && existsSync(join(pinned, pkg)) ? pinned : MODULES;
}

/**
 * Whether the install `modules` holds of `pkg` has the major the project's range asks for (or the range
 * names none). A runner of another major lists another file set (Jest 30 matches `.mjs`, Vitest 4 no
 * longer excludes `dist/`), so the comparison would report the version gap, not projdex: it is skipped.
 */
function majorMatches(dir: string, pkg: string, modules: string): boolean {
  const { dependencies = {}, devDependencies = {} } = manifest(dir);
  const wanted = /^[\^~>=]*\s*(\d+)/.exec(devDependencies[pkg] ?? dependencies[pkg] ?? '')?.[1];
  if (wanted === undefined) return true;
  try {
    const installed = (JSON.parse(readFileSync(join(modules, pkg, 'package.json'), 'utf8')) as { version: string }).version;
    return installed.split('.')[0] === wanted;
  } catch {
    return false;
  }
}

/** Flags of the package's own test script that change the file set, passed on to the runner. */
function scriptFlags(dir: string, flags: string[]): string[] {
  const words = (manifest(dir).scripts?.test ?? '').split(/\s+/);
  return flags.filter((flag) => words.includes(flag));
}

// Create React App runs Jest with its own config: src/ only (react-scripts' createJestConfig).
const CRA_ARGS = ['--roots', '<rootDir>/src', '--testMatch', '<rootDir>/src/**/__tests__/**/*.{js,jsx,ts,tsx}', '<rootDir>/src/**/*.{spec,test}.{js,jsx,ts,tsx}'];

interface Adapter { framework: string; list(dir: string): Promise<string[] | null> }

/** Output of a command (stdout), whatever its exit code; the runners exit non-zero on load errors. */
function run(file: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve) => {
    // No CI variable: projdex reads configs as a plain `npm test` runs them, with the environment unset.
    const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0' };
    delete env.CI;
    // stderr joins stdout after it: when the list is missing, the failure's own words are in the text.
    execFile(process.execPath, [file, ...args], { cwd, maxBuffer: 64 << 20, env },
      (err, stdout, stderr) => resolve(err && !String(stdout).trim() ? `${stdout}\n${stderr}` : String(stdout)));
  });
}

/** Whether the package.json of `dir` names the runner in a dependency or script, or a marker file exists. */
function applicable(dir: string, names: string[], markers: RegExp): boolean {
  let text = '';
  try { text = readFileSync(join(dir, 'package.json'), 'utf8'); } catch { /* no package.json */ }
  if (names.some((n) => text.includes(`"${n}"`) || new RegExp(`"test":\\s*"[^"]*\\b${n}\\b`).test(text))) return true;
  try { return readdirSync(dir).some((f) => markers.test(f)); } catch { return false; }
}

/** Runs `fn` in `dir`, or in a linked temp copy of it when it has no node_modules. Maps paths back. */
async function inPlaceOrCopy(dir: string, fn: (cwd: string) => Promise<string[]>, modules = MODULES): Promise<string[]> {
  const real = realpathSync(dir);
  // An installed project (it has node_modules/.bin) runs in place. A fixture that ships only the packages
  // it is about (a preset, a shared config) is copied with them, and the runners are linked in beside.
  const own = join(real, 'node_modules');
  if (existsSync(own) && existsSync(join(own, '.bin'))) return toRel(real, await fn(real));
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'projdex-cmp-')));
  try {
    const shipped = existsSync(own);
    cpSync(real, tmp, { recursive: true, filter: (src) => (shipped || !src.includes('/node_modules')) && !src.endsWith('/.git') });
    if (!shipped) symlinkSync(modules, join(tmp, 'node_modules'));
    else for (const name of readdirSync(modules)) if (!existsSync(join(tmp, 'node_modules', name))) symlinkSync(join(modules, name), join(tmp, 'node_modules', name));
    return toRel(tmp, await fn(tmp));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function toRel(base: string, files: string[]): string[] {
  return [...new Set(files.map((f) => (f.startsWith('/') ? relative(base, f) : f.replace(/^\.\//, ''))))].sort();
}

function json(text: string): unknown {
  const start = text.search(/[[{]/);
  if (start === -1 && /No test files found/i.test(text)) return []; // vitest's empty list, with exit code 1
  try {
    return JSON.parse(text.slice(start));
  } catch {
    // No JSON list: the runner failed before listing (a config or import error); its output says why.
    throw new RunnerFailed('the runner printed no file list', text);
  }
}

export const runners: Adapter[] = [
  {
    framework: 'jest',
    async list(dir) {
      if (!existsSync(join(MODULES, 'jest')) || !applicable(dir, ['jest', 'react-scripts'], /^jest\.config\./)) return null;
      if (!majorMatches(dir, 'jest', MODULES)) return null;
      const cra = 'react-scripts' in { ...manifest(dir).dependencies, ...manifest(dir).devDependencies };
      // The script's own project selection (`jest --selectProjects server`), which --listTests honours too.
      const selected = /--selectProjects[= ]+([\w@/.-]+)/.exec(JSON.stringify(manifest(dir).scripts ?? {}))?.[1];
      // The script's own config file (`jest --config ./scripts/jest/jest.config.js`).
      const config = /\bjest\b[^&|;"]*?\s(?:--config|-c)[= ]+([\w@/.-]+)/.exec(manifest(dir).scripts?.test ?? '')?.[1];
      const args = ['--listTests', '--json', ...(cra ? CRA_ARGS : []), ...(selected ? ['--selectProjects', selected] : []),
        ...(config ? ['--config', config] : [])];
      return inPlaceOrCopy(dir, async (cwd) => json(await run(join(MODULES, 'jest/bin/jest.js'), args, cwd)) as string[] ?? []);
    },
  },
  {
    framework: 'vitest',
    async list(dir) {
      if (!existsSync(join(MODULES, 'vitest')) || !applicable(dir, ['vitest'], /^vit(e|est)\.(config|workspace)\./)) return null;
      const modules = modulesFor(dir, 'vitest');
      if (!majorMatches(dir, 'vitest', modules)) return null;
      const args = ['list', '--filesOnly', '--json', ...scriptFlags(dir, ['--typecheck'])];
      return inPlaceOrCopy(dir, async (cwd) => {
        const out = json(await run(join(modules, 'vitest/vitest.mjs'), args, cwd));
        return Array.isArray(out) ? out.map((e: string | { file: string }) => (typeof e === 'string' ? e : e.file)) : [];
      }, modules);
    },
  },
  {
    framework: 'mocha',
    async list(dir) {
      if (!existsSync(join(MODULES, 'mocha')) || !applicable(dir, ['mocha'], /^\.mocharc\./) || !majorMatches(dir, 'mocha', MODULES)) return null;
      // Mocha's own option loading and file collection, without loading any test file (`--dry-run` would).
      const script = join(tmpdir(), 'projdex-mocha-list.cjs');
      writeFileSync(script, `
        const m = ${JSON.stringify(join(MODULES, 'mocha/lib/cli/'))};
        // Mocha's CLI modules end in .cjs in some 11.x releases and in .js in others (11.8).
        const cli = (name) => require(m + name
          + (require('node:fs').existsSync(m + name + '.cjs') ? '.cjs' : '.js'));
        const args = cli('options').loadOptions(process.argv.slice(2));
        const spec = args._ && args._.length ? args._ : (args.spec || ['test']);
        const r = cli('collect-files')({ ignore: args.ignore || [], extension: args.extension || [], file: args.file || [],
          recursive: args.recursive, sort: false, spec, allowEmpty: true });
        console.log(JSON.stringify(r.files || r));`);
      return inPlaceOrCopy(dir, async (cwd) => json(await run(script, scriptArgs(dir, 'mocha'), cwd)) as string[] ?? []);
    },
  },
  {
    framework: 'playwright',
    async list(dir) {
      if (!existsSync(join(MODULES, '@playwright/test')) || !applicable(dir, ['@playwright/test'], /^playwright\.config\./)) return null;
      if (!majorMatches(dir, '@playwright/test', MODULES)) return null;
      return inPlaceOrCopy(dir, async (cwd) => {
        const out = json(await run(join(MODULES, '@playwright/test/cli.js'), ['test', '--list', '--reporter=json'], cwd)) as
          { suites?: Array<{ file: string }>; errors?: Array<{ location?: { file: string } }>; config?: { rootDir?: string } } | undefined;
        const root = out?.config?.rootDir ?? cwd;
        // Files that failed to load are still files Playwright chose: they show up in `errors`.
        const files = [...(out?.suites ?? []).map((s) => join(root, s.file)), ...(out?.errors ?? []).flatMap((e) => (e.location ? [e.location.file] : []))];
        return files;
      });
    },
  },
  {
    framework: 'tap',
    async list(dir) {
      if (!existsSync(join(MODULES, 'tap')) || !applicable(dir, ['tap'], /^\.taprc$/)) return null;
      if (!majorMatches(dir, 'tap', MODULES)) return null;
      return inPlaceOrCopy(dir, async (cwd) => (await run(join(MODULES, 'tap/dist/esm/run.mjs'), ['list', ...scriptArgs(cwd, 'tap')], cwd))
        .split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('No files')));
    },
  },
  {
    framework: 'uvu',
    async list(dir) {
      if (!existsSync(join(MODULES, 'uvu')) || !applicable(dir, ['uvu'], /^$/)) return null;
      // uvu has no listing mode: its own collector (uvu/parse) with the script's dir, pattern and `-i` ignores.
      const args = scriptArgs(dir, 'uvu');
      const ignore: string[] = []; const pos: string[] = [];
      for (let i = 0; i < args.length; i++) {
        if (args[i] === '-i' || args[i] === '--ignore') ignore.push(args[++i]!);
        else if (/^-(r|c|-require|-cwd)$/.test(args[i]!)) i++;
        else if (!args[i]!.startsWith('-')) pos.push(args[i]!);
      }
      const script = join(tmpdir(), 'projdex-uvu-list.cjs');
      writeFileSync(script, `require(${JSON.stringify(join(MODULES, 'uvu/parse'))}).parse(process.argv[2] || undefined, process.argv[3] || undefined,
        { ignore: JSON.parse(process.argv[4]), cwd: process.cwd() }).then((r) => console.log(JSON.stringify(r.suites.map((s) => s.file))));`);
      return inPlaceOrCopy(dir, async (cwd) => json(await run(script, [pos[0] ?? '', pos[1] ?? '', JSON.stringify(ignore)], cwd)) as string[] ?? []);
    },
  },
  {
    framework: 'borp',
    async list(dir) {
      if (!existsSync(join(MODULES, 'borp')) || !applicable(dir, ['borp'], /^\.borp\.ya?ml$/)) return null;
      // borp runs the files it collects; a reporter that prints each enqueued file lists them.
      const reporter = join(tmpdir(), 'projdex-borp-files.mjs');
      writeFileSync(reporter, 'export default async function* (source) { for await (const e of source) if (e.type === "test:enqueue" && e.data.file) yield "FILE " + e.data.file + "\\n"; }');
      const args = scriptArgs(dir, 'borp').filter((a) => !/^--(coverage|check-coverage)$|^-C$/.test(a));
      return inPlaceOrCopy(dir, async (cwd) => [...new Set((await run(join(MODULES, 'borp/borp.js'), ['--reporter', reporter, ...args], cwd))
        .split('\n').filter((l) => l.startsWith('FILE ')).map((l) => l.slice(5)))]);
    },
  },
];

/** Words after `runner` in the package's test script (split on spaces; enough for the fixtures' scripts). */
function scriptArgs(dir: string, runner: string): string[] {
  const words = (manifest(dir).scripts?.test ?? '').split(/\s+/).map((w) => w.replace(/^['"]|['"]$/g, ''));
  const at = words.indexOf(runner);
  if (at === -1) return [];
  const end = words.findIndex((w, i) => i > at && /^(&&|\|\||;|\|)$/.test(w));
  return words.slice(at + 1, end === -1 ? undefined : end);
}
