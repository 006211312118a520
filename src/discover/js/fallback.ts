import type { Invocation, JsRunner, Pkg } from './types.ts';
import { depsOf } from './types.ts';

const CONFIGS: Array<[JsRunner, RegExp]> = [
  ['playwright', /^playwright\.config\.[cm]?[jt]s$/],
  ['cypress', /^cypress\.(config\.[cm]?[jt]s|json)$/],
  ['jest', /^jest\.config\.([cm]?[jt]s|json)$/],
  ['vitest', /^vit(est|e)\.config\.[cm]?[jt]s$|^vitest\.workspace\./],
  ['mocha', /^\.mocharc\.(c?js|mjs|ya?ml|jsonc?)$/],
  ['ava', /^ava\.config\.[cm]?js$/],
  ['jasmine', /^spec\/support\/jasmine\.(json|m?js)$/],
  ['web-test-runner', /^(web-test-runner|wtr)\.config\.[cm]?js$/],
];
const DEPS: Array<[JsRunner, string[]]> = [
  ['playwright', ['@playwright/test']], ['cypress', ['cypress']], ['cra', ['react-scripts']], ['jest', ['jest', 'jest-cli', '@jest/core']],
  ['vitest', ['vitest']], ['mocha', ['mocha']], ['ava', ['ava']], ['jasmine', ['jasmine']], ['web-test-runner', ['@web/test-runner']],
];
const KEYS: Array<[JsRunner, string]> = [['jest', 'jest'], ['mocha', 'mocha'], ['ava', 'ava']];

/**
 * Runners a package without a test script depends on or configures, most specific first: runners with
 * their own config file (Playwright and Cypress before the broad ones), then package.json keys, then
 * bare dependencies. The first runner to claim a file keeps it.
 */
export function fallbackRunners(pkg: Pkg): Invocation[] {
  const found: JsRunner[] = [];
  const add = (r: JsRunner): void => { if (!found.includes(r)) found.push(r); };
  const top = pkg.files.filter((f) => !f.includes('/') || f.startsWith('spec/support/'));
  for (const [runner, re] of CONFIGS) if (top.some((f) => re.test(f))) add(runner);
  for (const [runner, key] of KEYS) if (pkg.json[key] !== undefined) add(runner);
  const deps = depsOf(pkg.json);
  for (const [runner, names] of DEPS) if (names.some((n) => n in deps)) add(runner);
  // CRA's Jest is the app's Jest: a bare `jest` next to react-scripts would double-claim src/.
  if (found.includes('cra')) found.splice(found.indexOf('jest'), found.includes('jest') ? 1 : 0);
  return found.map((runner) => ({ runner, args: [], quoted: [] }));
}

/**
 * The runners a package configures right there (a config file at its top, or its package.json key), each
 * with where it is configured: what a wrapper projdex cannot follow most likely starts (a task runner or
 * a wrapper binary from a git dependency around AVA, which then reads `ava.config.js`).
 */
export function configuredRunners(pkg: Pkg): Array<{ runner: JsRunner; where: string }> {
  const out: Array<{ runner: JsRunner; where: string }> = [];
  const top = pkg.files.filter((f) => !f.includes('/') || f.startsWith('spec/support/')).sort();
  for (const [runner, re] of CONFIGS) {
    const file = top.find((f) => re.test(f));
    if (file) out.push({ runner, where: file });
  }
  for (const [runner, key] of KEYS) {
    if (pkg.json[key] !== undefined && !out.some((o) => o.runner === runner)) out.push({ runner, where: `package.json \`${key}\`` });
  }
  return out;
}
