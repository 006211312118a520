/**
 * `npm test` runs the package's `pretest` script first and `posttest` after a passing test (pnpm 9 and
 * 10 and yarn 1 do the same); a `pretest` is often a build the tests need. When a step's command is the
 * package's `test` script, projdex does what the package manager would. Not run: with npm's
 * `ignore-scripts=true` (npm then skips pre and post scripts of `npm test`), and under Yarn 2+, which has
 * no pre/post scripts.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** package.json and .npmrc over this size are not read for hooks. */
const MAX_FILE = 1024 * 1024;

export interface ScriptHooks {
  /** The `pretest` script's text, run before the command. */
  readonly pre?: string;
  /** The `posttest` script's text, run after the command when it passed. */
  readonly post?: string;
  /** What was decided, for the step's record (never silence about a hook not run). */
  readonly notes: string[];
}

/**
 * The hooks of a step that runs `command` in `cwd` (inside the project `root`): none unless the command is
 * the `test` script of the package.json there.
 */
export function scriptHooks(root: string, cwd: string, command: string): ScriptHooks {
  const pkg = readJson(`${cwd}/package.json`);
  const scripts = pkg?.scripts;
  if (!scripts || typeof scripts !== 'object' || (scripts as Record<string, unknown>).test !== command) return { notes: [] };
  const { pretest, posttest } = scripts as Record<string, unknown>;
  const pre = typeof pretest === 'string' && pretest.trim() !== '' ? pretest : undefined;
  const post = typeof posttest === 'string' && posttest.trim() !== '' ? posttest : undefined;
  if (!pre && !post) return { notes: [] };
  const names = [pre && '`pretest`', post && '`posttest`'].filter(Boolean).join(' and ');
  const skipped = whyNot(root, cwd, pkg!);
  if (skipped) return { notes: [`the ${names} script${pre && post ? 's were' : ' was'} not run: ${skipped}`] };
  return { ...(pre ? { pre } : {}), ...(post ? { post } : {}), notes: [] };
}

/** Why the package manager would not run the hooks, or undefined when it would. */
function whyNot(root: string, cwd: string, pkg: Record<string, unknown>): string | undefined {
  const dirs: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    dirs.push(dir);
    if (dir === root || !dir.startsWith(root + '/')) break;
  }
  const manager = [pkg, ...dirs.slice(1).map((d) => readJson(`${d}/package.json`))]
    .map((p) => p?.packageManager).find((m) => typeof m === 'string') as string | undefined;
  const yarnMajor = /^yarn@(\d+)/.exec(manager ?? '')?.[1];
  if ((yarnMajor && Number(yarnMajor) >= 2) || (!manager && dirs.some((d) => exists(`${d}/.yarnrc.yml`)))) {
    return 'Yarn 2 and later run no pre/post scripts';
  }
  if (dirs.some((d) => /^\s*ignore-scripts\s*=\s*true\s*$/m.test(readSmall(`${d}/.npmrc`) ?? ''))) {
    return '`.npmrc` sets `ignore-scripts=true`, with which npm skips them';
  }
  return undefined;
}

function readSmall(path: string): string | undefined {
  try { return statSync(path).size > MAX_FILE ? undefined : readFileSync(path, 'utf8'); } catch { return undefined; }
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readSmall(path) ?? '');
    return value && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
  } catch { return undefined; }
}

function exists(path: string): boolean {
  try { statSync(path); return true; } catch { return false; }
}
