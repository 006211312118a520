import type { Invocation, JsRunner, Pkg } from '../types.ts';
import { dirname, joinPath } from '../../../rules/paths.ts';

/**
 * Where a runner call made in another directory than its package's (`cd e2e && playwright test`, a CI step
 * with a `working-directory`) looks for its config and files, as that runner does:
 * - Mocha, Playwright, node:test, tape, Cypress, Web Test Runner, ...: the directory it runs in (config and
 *   globs are read from the working directory only).
 * - Jest: the first directory from there up to the package holding a `jest.config.*` or a package.json
 *   (its rootDir); AVA and the wrappers that read package.json: the first holding a package.json.
 * - Vitest: `root` is the working directory and its config is looked up from there (`--root`).
 * The result is a view of the package rooted at that directory, and the call to hand its rule.
 */
export async function atRunDir(pkg: Pkg, inv: Invocation): Promise<{ pkg: Pkg; inv: Invocation }> {
  const cwd = inv.cwd;
  if (cwd === undefined || cwd === '' || cwd.startsWith('..') || cwd.startsWith('/')) return { pkg, inv };
  const plain: Invocation = { runner: inv.runner, args: inv.args, quoted: inv.quoted };
  if (inv.runner === 'vitest') {
    // A `--root` given too is read from the working directory.
    const at = inv.args.findIndex((a) => a === '--root' || a === '-r');
    const args = at === -1 ? ['--root', cwd, ...inv.args] : inv.args.map((a, i) => (i === at + 1 ? joinPath(cwd, a) : a));
    const quoted = at === -1 ? [false, false, ...inv.quoted] : inv.quoted;
    return { pkg, inv: { ...plain, args, quoted } };
  }
  const dir = PACKAGE_ROOTED.has(inv.runner) ? upTo(pkg, cwd, inv.runner === 'jest' ? JEST_CONFIGS : ['package.json']) : cwd;
  if (dir === '') return { pkg, inv: plain };
  // A package.json of its own there (not a workspace member) is what Jest and AVA read their keys from.
  let json = pkg.json;
  if (pkg.has(`${dir}/package.json`)) {
    try { json = JSON.parse((await pkg.read(`${dir}/package.json`)) ?? '{}') as Record<string, unknown>; } catch { json = {}; }
    if (json === null || typeof json !== 'object' || Array.isArray(json)) json = {};
  }
  return { pkg: subPackage(pkg, dir, json), inv: plain };
}

const PACKAGE_ROOTED = new Set<JsRunner>(['jest', 'ava', 'cra', 'kcd', 'angular']);
const JEST_CONFIGS = ['package.json', ...['js', 'ts', 'mjs', 'cjs', 'mts', 'cts', 'json'].map((e) => `jest.config.${e}`)];

/** The first directory from `cwd` up to the package (exclusive: `''` is the package) holding one of `names`. */
function upTo(pkg: Pkg, cwd: string, names: readonly string[]): string {
  for (let d = joinPath(cwd); d !== ''; d = dirname(d)) if (names.some((n) => pkg.has(`${d}/${n}`))) return d;
  return '';
}

/** `pkg` seen from its subdirectory `rel`: files, directories, reads and `has` relative to it. */
export function subPackage(pkg: Pkg, rel: string, json: Record<string, unknown> = pkg.json): Pkg {
  const prefix = rel + '/';
  let files: readonly string[] | undefined;
  let dirs: ReadonlySet<string> | undefined;
  return {
    dir: joinPath(pkg.dir, rel),
    json,
    get files() { return (files ??= pkg.files.filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length))); },
    get dirs() {
      return (dirs ??= new Set([...pkg.dirs].filter((d) => d.startsWith(prefix)).map((d) => d.slice(prefix.length))));
    },
    has: (path) => pkg.has(prefix + path),
    read: (path) => pkg.read(prefix + path),
    release: () => { files = undefined; dirs = undefined; },
  };
}
