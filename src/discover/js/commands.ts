/**
 * What one simple command of a package script does, for test discovery: starts a runner, runs another
 * script (`npm run x -- args`, `yarn x`, `pnpm run /re/`, `run-s test:*`), hands a script to workspace
 * packages (`pnpm -r`, `--filter`, `npm -ws`, `yarn workspaces foreach`, `lerna run`, `turbo run`,
 * `nx run-many`), wraps another command (`cross-env`, `dotenv --`, `c8`, `nyc`, `tsx`, ...), or is a
 * tool that runs no tests (`tsc`, `eslint`, `rimraf`). Anything else is `unknown`.
 */

import type { JsRunner } from './types.ts';

export type Step =
  | { kind: 'runner'; runner: JsRunner; args: string[]; quoted: boolean[] }
  | { kind: 'script'; names: string[] | RegExp; args: string[]; quoted: boolean[]; dir?: string }
  | { kind: 'delegate'; tool: string; scripts: string[]; filters: string[] | null; args: string[] }
  | { kind: 'wrapped'; argv: string[]; quoted: boolean[] }
  | { kind: 'program'; text: string }
  | { kind: 'quiet' }
  | { kind: 'unknown'; name: string };

const WRAPPERS = new Set(['cross-env', 'cross-env-shell', 'env', 'npx', 'pnpx', 'bunx', 'dotenv', 'dotenv-cli', 'nyc', 'c8', 'time', 'nodemon',
  'env-cmd', 'with-env', 'xvfb-run', 'ts-node', 'ts-node-esm', 'tsx', 'esno', 'babel-node', 'sucrase-node', 'nice', 'caffeinate', 'op', 'infisical', 'doppler']);
export const BINARIES: Record<string, JsRunner> = {
  jest: 'jest', 'jest-cli': 'jest', vitest: 'vitest', mocha: 'mocha', _mocha: 'mocha', ava: 'ava', jasmine: 'jasmine',
  wtr: 'web-test-runner', 'web-test-runner': 'web-test-runner', tap: 'tap', uvu: 'uvu', borp: 'borp',
};
const SUBCOMMANDS: Record<string, Record<string, JsRunner>> = {
  playwright: { test: 'playwright' }, cypress: { run: 'cypress' }, bun: { test: 'bun' }, deno: { test: 'deno' },
  'react-scripts': { test: 'cra' }, craco: { test: 'cra' }, 'react-app-rewired': { test: 'cra' }, 'kcd-scripts': { test: 'kcd' },
  'vue-cli-service': { 'test:unit': 'jest' }, 'razzle': { test: 'jest' }, 'tsdx': { test: 'jest' }, 'dts': { test: 'jest' },
};
const QUIET = new Set(['echo', 'exit', 'true', 'false', 'rm', 'rimraf', 'del', 'del-cli', 'mkdir', 'mkdirp', 'cp', 'mv', 'cpy', 'shx', 'tsc', 'eslint',
  'prettier', 'biome', 'xo', 'standard', 'tsd', 'attw', 'publint', 'set', 'sleep', 'printf', 'test', '[', '[[', 'wait', 'export', 'unset', 'cat',
  'touch', 'chmod', 'ln', 'git', 'husky', 'lint-staged', 'build', 'vite', 'webpack', 'rollup', 'esbuild', 'tsup', 'babel', 'node-gyp',
  'wait-on', 'docker', 'docker-compose', 'sh', 'bash', 'stylelint', 'markdownlint', 'cspell', 'knip', 'depcheck', 'size-limit', 'open', 'codecov',
  'coveralls', 'unbuild', 'pkgroll', 'dts-bundle-generator', 'api-extractor', 'type-coverage', 'lerna-changelog', 'sort-package-json', 'oxlint']);
// Node options whose value is the next word.
const NODE_VALUE = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '--test-reporter', '--test-reporter-destination',
  '--test-name-pattern', '--test-skip-pattern', '--test-concurrency', '--test-timeout', '--env-file', '--conditions', '-C', '--test-shard', '--max-old-space-size']);
const PM = new Set(['npm', 'yarn', 'pnpm', 'bun']);

export const base = (word: string): string => word.slice(word.lastIndexOf('/') + 1);

/** Classifies one command; `hasScript` says whether the package defines a script of that name. */
export function classify(argv: readonly string[], quoted: readonly boolean[], hasScript: (n: string) => boolean): Step {
  const name = base(argv[0] ?? '');
  const rest = argv.slice(1);
  const restQ = quoted.slice(1);
  if (name === '') return { kind: 'quiet' };
  if (WRAPPERS.has(name)) return unwrap(name, rest, restQ);
  if (PM.has(name)) return packageManager(name, rest, restQ, hasScript);
  if (name === 'run-s' || name === 'run-p' || name === 'npm-run-all' || name === 'npm-run-all2') {
    const names = rest.filter((a) => !a.startsWith('-'));
    return { kind: 'script', names, args: [], quoted: [] };
  }
  if (name === 'concurrently') return { kind: 'program', text: rest.filter((a) => !a.startsWith('-')).map((a) => (hasScript(a) ? `npm run ${a}` : a)).join(' ; ') };
  if (name === 'start-server-and-test' || name === 'server-test') {
    const last = rest[rest.length - 1] ?? '';
    return hasScript(last) ? { kind: 'script', names: [last], args: [], quoted: [] } : { kind: 'program', text: last };
  }
  if (name === 'turbo' || name === 'lerna' || name === 'nx' || name === 'wsrun' || name === 'ultra') return monorepoTool(name, rest);
  if (name === 'node' || name === 'tsx' || name === 'ts-node') return node(rest, restQ, hasScript);
  const direct = BINARIES[name];
  if (direct) return { kind: 'runner', runner: direct, args: rest, quoted: restQ };
  const sub = SUBCOMMANDS[name]?.[rest[0] ?? ''];
  if (sub) return { kind: 'runner', runner: sub, args: rest.slice(1), quoted: restQ.slice(1) };
  if (name === 'ng' && (rest[0] === 'test' || rest[0] === 't')) return { kind: 'runner', runner: 'angular', args: rest.slice(1), quoted: restQ.slice(1) };
  if (QUIET.has(name)) return { kind: 'quiet' };
  return { kind: 'unknown', name };
}

/** `cross-env A=1 jest`, `dotenv -e .env -- jest`, `c8 --reporter lcov mocha`: the first command word after the wrapper's own flags. */
function unwrap(name: string, rest: string[], restQ: boolean[]): Step {
  const dash = rest.indexOf('--');
  if (dash !== -1 && (name === 'dotenv' || name === 'dotenv-cli' || name === 'env-cmd' || name === 'op' || name === 'doppler' || name === 'infisical')) {
    return { kind: 'wrapped', argv: rest.slice(dash + 1), quoted: restQ.slice(dash + 1) };
  }
  if (name === 'tsx' || name === 'ts-node' || name === 'ts-node-esm' || name === 'esno' || name === 'babel-node') {
    if (rest.includes('--test')) return node(rest, restQ, () => false);
  }
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--') continue;
    if (a.startsWith('-')) { if (/^-(e|r|-reporter|-env|-require|-include|-exclude|-temp-directory|-report-dir|-config|f|-file)$/.test(a) && name !== 'env') i++; continue; }
    if (/^[A-Za-z_]\w*=/.test(a)) continue;
    return { kind: 'wrapped', argv: rest.slice(i), quoted: restQ.slice(i) };
  }
  return { kind: 'quiet' };
}

function packageManager(name: string, rest: string[], restQ: boolean[], hasScript: (n: string) => boolean): Step {
  const filters: string[] = [];
  let all = false;
  let dir: string | undefined;
  // Each word after the package manager's own flags; `raw` marks those after `--`.
  const words: Array<{ a: string; q: boolean; raw: boolean }> = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--') { for (let j = i + 1; j < rest.length; j++) words.push({ a: rest[j]!, q: restQ[j]!, raw: true }); break; }
    if (a === '-r' || a === '--recursive' || a === '--workspaces' || a === '-ws') { all = true; continue; }
    // `npm --prefix dir test`, `pnpm -C dir test`, `yarn --cwd dir test`: the script of another directory.
    const d = /^(?:--prefix|-C|--dir|--cwd)(?:=(.*))?$/.exec(a);
    if (d) { dir = d[1] ?? rest[++i] ?? ''; continue; }
    const f = /^(?:--filter|-F|--workspace|-w)(?:=(.*))?$/.exec(a);
    if (f && (name === 'npm' || name === 'pnpm' || (name === 'bun' && a.startsWith('--filter')))) { filters.push(f[1] ?? rest[++i] ?? ''); continue; }
    if (a.startsWith('-') && words.length === 0) continue;
    words.push({ a, q: restQ[i]!, raw: false });
  }
  const plain = words.map((w) => w.a);
  let cmd = plain[0];
  let args = words.slice(1);
  if (name === 'yarn' && cmd === 'workspaces') return yarnWorkspaces(plain.slice(1));
  if (name === 'yarn' && cmd === 'workspace') {
    return { kind: 'delegate', tool: 'yarn workspace', scripts: [plain[2] === 'run' ? plain[3] ?? 'test' : plain[2] ?? 'test'], filters: [plain[1] ?? ''], args: [] };
  }
  if (cmd === 'exec' || cmd === 'dlx' || cmd === 'x') return { kind: 'wrapped', argv: args.map((w) => w.a), quoted: args.map((w) => w.q) };
  if (cmd === 'run' || cmd === 'run-script' || cmd === 'rum' || cmd === 'urn') { cmd = args[0]?.a; args = args.slice(1); }
  else if (name === 'bun' && cmd === 'test') return { kind: 'runner', runner: 'bun', args: args.map((w) => w.a), quoted: args.map((w) => w.q) };
  else if (cmd === 'install' || cmd === 'i' || cmd === 'ci' || cmd === 'build') return { kind: 'quiet' };
  if (cmd === 't' || cmd === 'tst') cmd = 'test';
  if (cmd === undefined) return { kind: 'quiet' };
  // npm keeps flags written before `--` for itself (`npm test --if-present`); yarn and pnpm pass them on.
  if (name === 'npm') args = args.filter((w) => w.raw || !w.a.startsWith('-'));
  const argv = args.map((w) => w.a);
  const argq = args.map((w) => w.q);
  if (all || filters.length > 0) return { kind: 'delegate', tool: `${name} ${all ? '--recursive' : '--filter'}`, scripts: [cmd], filters: filters.length > 0 ? filters : null, args: argv };
  const re = /^\/(.+)\/$/.exec(cmd);
  if (dir !== undefined) return { kind: 'script', names: [cmd], args: argv, quoted: argq, dir };
  if (re && name === 'pnpm') { try { return { kind: 'script', names: new RegExp(re[1]!), args: argv, quoted: argq }; } catch { return { kind: 'unknown', name: cmd }; } }
  if (name === 'npm' && !hasScript(cmd) && cmd !== 'test') return { kind: 'quiet' };
  // `yarn jest` runs the script `jest` if there is one, else the binary.
  if (hasScript(cmd) || cmd === 'test') return { kind: 'script', names: [cmd], args: argv, quoted: argq };
  return { kind: 'wrapped', argv: [cmd, ...argv], quoted: [false, ...argq] };
}

function yarnWorkspaces(words: string[]): Step {
  // Yarn 1: `yarn workspaces run test`; Berry: `yarn workspaces foreach -A --include x run test`.
  const filters: string[] = [];
  let script = 'test';
  for (let i = 0; i < words.length; i++) {
    const a = words[i]!;
    if (a === '--include') filters.push(words[++i] ?? '');
    else if (a.startsWith('--include=')) filters.push(a.slice(10));
    else if (a === '--exclude' || a === '--from' || a === '-j' || a === '--jobs') i++;
    else if (a === 'run') { script = words[i + 1] ?? 'test'; break; }
    else if (!a.startsWith('-') && a !== 'foreach') { script = a; break; }
  }
  return { kind: 'delegate', tool: 'yarn workspaces', scripts: [script], filters: filters.length > 0 ? filters : null, args: [] };
}

function monorepoTool(name: string, rest: string[]): Step {
  const filters: string[] = [];
  const scripts: string[] = [];
  const words = rest.filter((a) => !a.startsWith('-') || /^--(filter|scope|projects|target|targets)=/.test(a));
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const f = /^(?:--filter|-F|--scope|--projects|-p)(?:=(.*))?$/.exec(a);
    if (f) { const v = f[1] ?? rest[++i] ?? ''; filters.push(...v.split(',')); continue; }
    const t = /^(?:--target|--targets|-t)(?:=(.*))?$/.exec(a);
    if (t) { scripts.push(...(t[1] ?? rest[++i] ?? '').split(',')); continue; }
  }
  const positional = rest.filter((a, i) => !a.startsWith('-') && !/^(?:--filter|-F|--scope|--projects|-p|--target|--targets|-t|--concurrency|--cache-dir)$/.test(rest[i - 1] ?? ''));
  void words;
  if (name === 'nx') {
    const [sub, ...more] = positional;
    if (sub === 'run-many' || sub === 'affected') return { kind: 'delegate', tool: `nx ${sub}`, scripts: scripts.length > 0 ? scripts : ['test'], filters: filters.length > 0 ? filters : null, args: [] };
    if (sub === 'run' && more[0]?.includes(':')) { const [p, target] = more[0].split(':'); return { kind: 'delegate', tool: 'nx run', scripts: [target!], filters: [p!], args: [] }; }
    if (sub !== undefined && more[0] !== undefined) return { kind: 'delegate', tool: 'nx', scripts: [sub], filters: [more[0]], args: [] };
    return { kind: 'unknown', name: 'nx' };
  }
  const list = positional[0] === 'run' || positional[0] === 'exec' ? positional.slice(1) : positional;
  const targets = name === 'turbo' ? list : list.slice(0, 1);
  return { kind: 'delegate', tool: name, scripts: targets.length > 0 ? targets : ['test'], filters: filters.length > 0 ? filters : null, args: [] };
}

/** `node --test ...`, `node --import tsx --test`, `node node_modules/jest/bin/jest.js`, `node scripts/test.js`. */
function node(rest: string[], restQ: boolean[], _hasScript: (n: string) => boolean): Step {
  const args: string[] = []; const q: boolean[] = [];
  let test = false;
  for (let j = 0; j < rest.length; j++) {
    const a = rest[j]!;
    if (NODE_VALUE.has(a)) { j++; continue; }
    if (a === '--test' || a.startsWith('--test=')) { test = true; continue; }
    if (a.startsWith('-')) continue;
    if (!test) {
      const bin = /node_modules\/(?:\.bin\/)?((?:@[\w.-]+\/)?[\w.-]+)/.exec(a);
      const known = bin ? bin[1]!.replace(/^@playwright\/test$/, 'playwright') : undefined;
      if (known) return classify([known === 'jest-cli' ? 'jest' : known, ...rest.slice(j + 1)], [false, ...restQ.slice(j + 1)], () => false);
      return { kind: 'unknown', name: `node ${a}` };
    }
    args.push(a); q.push(restQ[j]!);
  }
  return test ? { kind: 'runner', runner: 'node-test', args, quoted: q } : { kind: 'quiet' };
}
