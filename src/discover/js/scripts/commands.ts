/**
 * What one simple command of a package script does, for test discovery: starts a runner, runs another
 * script (`npm run x -- args`, `yarn x`, `pnpm run /re/`, `run-s test:*`), hands a script to workspace
 * packages (`pnpm -r`, `--filter`, `npm -ws`, `yarn workspaces foreach`, `lerna run`, `turbo run`,
 * `nx run-many`), wraps another command (`cross-env`, `dotenv --`, `c8`, `nyc`, `tsx`, ...), or is a
 * tool that runs no tests (`tsc`, `eslint`, `rimraf`). Anything else is `unknown`.
 */

import type { JsRunner } from '../types.ts';
import { concurrently, monorepoTool, packageManager } from './package-managers.ts';
import { make, shell, shellFile } from './shell-commands.ts';

export type Step =
  | { kind: 'runner'; runner: JsRunner; args: string[]; quoted: boolean[] }
  | { kind: 'script'; names: string[] | RegExp; args: string[]; quoted: boolean[]; dir?: string }
  | { kind: 'delegate'; tool: string; scripts: string[]; filters: string[] | null; args: string[] }
  | { kind: 'wrapped'; argv: string[]; quoted: boolean[] }
  | { kind: 'program'; text: string }
  | { kind: 'shfile'; path: string; args: string[]; quoted: boolean[] }
  | { kind: 'jsfile'; path: string; args: string[]; quoted: boolean[] }
  | { kind: 'make'; dir: string; file: string | null; targets: string[] }
  | { kind: 'tasks'; argv: string[] }
  | { kind: 'quiet' }
  | { kind: 'unknown'; name: string };

const WRAPPERS = new Set(['cross-env', 'env', 'npx', 'pnpx', 'bunx', 'dotenv', 'dotenv-cli', 'nyc', 'c8', 'time', 'nodemon',
  'env-cmd', 'with-env', 'xvfb-run', 'exec', 'ts-node', 'ts-node-esm', 'tsx', 'esno', 'babel-node', 'sucrase-node', 'nice', 'caffeinate', 'op', 'infisical', 'doppler']);
export const BINARIES: Record<string, JsRunner> = {
  jest: 'jest', 'jest-cli': 'jest', vitest: 'vitest', mocha: 'mocha', _mocha: 'mocha', ava: 'ava', jasmine: 'jasmine',
  wtr: 'web-test-runner', 'web-test-runner': 'web-test-runner', tap: 'tap', uvu: 'uvu', borp: 'borp',
  tape: 'tape', bnt: 'bnt',
};
const SUBCOMMANDS: Record<string, Record<string, JsRunner>> = {
  playwright: { test: 'playwright' }, cypress: { run: 'cypress' }, bun: { test: 'bun' }, deno: { test: 'deno' },
  'react-scripts': { test: 'cra' }, craco: { test: 'cra' }, 'react-app-rewired': { test: 'cra' }, 'kcd-scripts': { test: 'kcd' },
  'vue-cli-service': { 'test:unit': 'jest' }, karma: { start: 'karma-start' }, 'razzle': { test: 'jest' }, 'tsdx': { test: 'jest' }, 'dts': { test: 'jest' },
};
const QUIET = new Set(['echo', 'exit', 'true', 'false', 'rm', 'rimraf', 'del', 'del-cli', 'mkdir', 'mkdirp', 'cp', 'mv', 'cpy', 'shx', 'tsc', 'eslint',
  'prettier', 'biome', 'xo', 'standard', 'tsd', 'attw', 'publint', 'set', 'sleep', 'printf', 'test', '[', '[[', 'wait', 'export', 'unset', 'cat',
  'touch', 'chmod', 'ln', 'git', 'husky', 'lint-staged', 'build', 'vite', 'webpack', 'rollup', 'esbuild', 'tsup', 'babel', 'node-gyp',
  'wait-on', 'docker', 'docker-compose', 'stylelint', 'markdownlint', 'cspell', 'knip', 'depcheck', 'size-limit', 'open', 'codecov',
  'coveralls', 'unbuild', 'pkgroll', 'dts-bundle-generator', 'api-extractor', 'type-coverage', 'lerna-changelog', 'sort-package-json', 'oxlint',
  // TAP reporters and filters a runner's output is piped through (`tape test/*.js | tap-spec`), shell utilities.
  'tap-spec', 'tap-dancer', 'faucet', 'tap-min', 'tap-nyan', 'tap-arc', 'tap-mocha-reporter', 'tap-xunit', 'tap-junit', 'tap-summary',
  'tap-difflet', 'tap-diff', 'tap-bail', 'tap-teamcity', 'tap-spek', 'tee', 'grep', 'head', 'tail', 'sed', 'awk', 'cd', 'pwd', ':',
  // Shell builtins and keywords a script file uses around its commands.
  'function', 'local', 'return', 'trap', 'shift', 'declare', 'readonly', 'typeset', 'let', 'break', 'continue', 'shopt', 'type',
  'which', 'hash', 'umask', 'ulimit']);
// Node options whose value is the next word.
const NODE_VALUE = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '--test-reporter', '--test-reporter-destination',
  '--test-name-pattern', '--test-skip-pattern', '--test-concurrency', '--test-timeout', '--env-file', '--conditions', '-C', '--test-shard', '--max-old-space-size']);
const PM = new Set(['npm', 'yarn', 'pnpm', 'bun']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'source', '.']);

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
  if (name === 'concurrently' || name === 'conc') return concurrently(rest, hasScript);
  // `istanbul cover _mocha -- test.js`: istanbul 0.x runs the command after `cover`/`test`, its own flags before `--`.
  // The command is the last word before `--` that is no option (`istanbul cover --report lcov _mocha -- t.js`).
  if (name === 'istanbul' && (rest[0] === 'cover' || rest[0] === 'test')) {
    const dash = rest.indexOf('--') === -1 ? rest.length : rest.indexOf('--');
    let at = dash - 1;
    while (at > 0 && rest[at]!.startsWith('-')) at--;
    if (at < 1) return { kind: 'unknown', name: `istanbul ${rest[0]}` };
    return { kind: 'wrapped', argv: [rest[at]!, ...rest.slice(dash + 1)], quoted: [restQ[at]!, ...restQ.slice(dash + 1)] };
  }
  if (name === 'cross-env-shell') return { kind: 'program', text: rest.filter((a) => !/^[A-Za-z_]\w*=/.test(a)).join(' ') };
  if (name === 'start-server-and-test' || name === 'server-test') {
    const last = rest[rest.length - 1] ?? '';
    return hasScript(last) ? { kind: 'script', names: [last], args: [], quoted: [] } : { kind: 'program', text: last };
  }
  if (name === 'turbo' || name === 'lerna' || name === 'nx' || name === 'wsrun' || name === 'ultra') return monorepoTool(name, rest);
  if (name === 'node' || name === 'tsx' || name === 'ts-node') return node(rest, restQ, hasScript);
  // ts-mocha is Mocha with ts-node registered: its own `-p/--project tsconfig`, `--paths`, `--type-check` go.
  if (name === 'ts-mocha') {
    const keep = rest.map((_, i) => i).filter((i) => !/^(--paths|--type-check)$/.test(rest[i]!) && !/^(-p|--project)$/.test(rest[i]!) && !/^(-p|--project)$/.test(rest[i - 1] ?? ''));
    return { kind: 'runner', runner: 'mocha', args: keep.map((i) => rest[i]!), quoted: keep.map((i) => restQ[i]!) };
  }
  const direct = BINARIES[name];
  if (direct) return { kind: 'runner', runner: direct, args: rest, quoted: restQ };
  // `playwright install chromium`, `cypress verify`: setup, no tests.
  if ((name === 'playwright' || name === 'cypress') && /^(install|install-deps|show-report|verify|cache)$/.test(rest[0] ?? '')) return { kind: 'quiet' };
  const sub = SUBCOMMANDS[name]?.[rest[0] ?? ''];
  if (sub) return { kind: 'runner', runner: sub, args: rest.slice(1), quoted: restQ.slice(1) };
  if (name === 'ng' && (rest[0] === 'test' || rest[0] === 't')) return { kind: 'runner', runner: 'angular', args: rest.slice(1), quoted: restQ.slice(1) };
  if (SHELLS.has(name)) return shell(rest, restQ);
  if (name === 'make' || name === 'gmake') return make(rest);
  // just's justfile and go-task's Taskfile.yml: their recipes are followed like a script's lines.
  if (name === 'just' || name === 'task' || name === 'go-task') return { kind: 'tasks', argv: [name, ...rest] };
  // `./scripts/test` is a file of the project, not the `test` builtin its basename names.
  if (QUIET.has(name) && (!argv[0]!.includes('/') || argv[0]!.includes('node_modules/.bin/'))) return { kind: 'quiet' };
  const file = shellFile(argv[0]!, rest, restQ);
  return file ?? { kind: 'unknown', name };
}

/** `cross-env A=1 jest`, `dotenv -e .env -- jest`, `c8 --reporter lcov mocha`: the first command word after the wrapper's own flags. */
function unwrap(name: string, rest: string[], restQ: boolean[]): Step {
  // `c8 check-coverage --lines 99`, `nyc report`: coverage bookkeeping, no command run.
  if ((name === 'c8' || name === 'nyc') && /^(check-coverage|report|merge|instrument)$/.test(rest.find((a) => !a.startsWith('-')) ?? '')) return { kind: 'quiet' };
  const dash = rest.indexOf('--');
  if (dash !== -1 && (name === 'dotenv' || name === 'dotenv-cli' || name === 'env-cmd' || name === 'op' || name === 'doppler' || name === 'infisical')) {
    return { kind: 'wrapped', argv: rest.slice(dash + 1), quoted: restQ.slice(dash + 1) };
  }
  // `tsx --test`, `tsx scripts/test.ts`: node's own reading (a test run, or a file whose calls are read).
  if (name === 'tsx' || name === 'ts-node' || name === 'ts-node-esm' || name === 'esno' || name === 'babel-node') {
    if (rest.includes('--test') || rest.some((a) => /\.[cm]?[jt]s$/.test(a))) return node(rest, restQ, () => false);
  }
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--') continue;
    if (a.startsWith('-')) {
      if (/^-(e|r|-reporter|-env|-require|-include|-exclude|-temp-directory|-report-dir|-config|f|-file)$/.test(a) && name !== 'env') i++;
      else if ((name === 'npx' || name === 'pnpx' || name === 'bunx') && (a === '-p' || a === '--package')) i++;
      continue;
    }
    if (/^[A-Za-z_]\w*=/.test(a)) continue;
    return { kind: 'wrapped', argv: rest.slice(i), quoted: restQ.slice(i) };
  }
  return { kind: 'quiet' };
}

/** `node --test ...`, `node --import tsx --test`, `node node_modules/jest/bin/jest.js`, `node scripts/test.js`. */
function node(rest: string[], restQ: boolean[], _hasScript: (n: string) => boolean): Step {
  const args: string[] = []; const q: boolean[] = [];
  let test = false;
  for (let j = 0; j < rest.length; j++) {
    const a = rest[j]!;
    if (NODE_VALUE.has(a)) { j++; continue; }
    if (a === '--test' || a.startsWith('--test=')) { test = true; continue; }
    // `node --run test:unit -- --ci` (Node 22+): the package script of that name, as `npm run` would.
    if (!test && (a === '--run' || a.startsWith('--run='))) {
      const script = a === '--run' ? rest[++j] ?? '' : a.slice(6);
      const more = rest.slice(j + 1).filter((w) => w !== '--');
      return { kind: 'script', names: [script], args: more, quoted: more.map(() => false) };
    }
    // `node -e "..."` / `node -p`: inline code, no file to follow.
    if (!test && /^(-e|-p|--eval|--print)$/.test(a)) return { kind: 'unknown', name: `node ${a}` };
    if (a.startsWith('-')) continue;
    if (!test) {
      const bin = /node_modules\/(?:\.bin\/)?((?:@[\w.-]+\/)?[\w.-]+)/.exec(a);
      const known = bin ? bin[1]!.replace(/^@playwright\/test$/, 'playwright') : undefined;
      if (known) return classify([known === 'jest-cli' ? 'jest' : known, ...rest.slice(j + 1)], [false, ...restQ.slice(j + 1)], () => false);
      // `node scripts/test.js`: the file's child-process calls are read (node-script.ts).
      if (/\.[cm]?[jt]s$/.test(a) && !a.includes('$')) return { kind: 'jsfile', path: a, args: rest.slice(j + 1), quoted: restQ.slice(j + 1) };
      return { kind: 'unknown', name: `node ${a}` };
    }
    args.push(a); q.push(restQ[j]!);
  }
  return test ? { kind: 'runner', runner: 'node-test', args, quoted: q } : { kind: 'quiet' };
}
