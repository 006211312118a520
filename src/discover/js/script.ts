import { parseShell } from '../../readers/shell.ts';
import { globToRegExp } from '../glob.ts';
import type { Invocation, JsRunner } from './types.ts';

/** What a package's `scripts.test` reaches. */
export interface ScriptPlan {
  /** The script is missing or the `npm init` placeholder. */
  readonly missing: boolean;
  /** Runner calls, in the order the chain reaches them. */
  readonly invocations: Invocation[];
  /** The chain hands off to workspace packages (`turbo run test`, `pnpm -r test`, ...). */
  readonly delegates: boolean;
}

const PLACEHOLDER = /no test specified/;
// Wrappers whose own flags come first and whose first plain word is the real command.
const WRAPPERS = new Set(['cross-env', 'cross-env-shell', 'env', 'npx', 'pnpx', 'bunx', 'dotenv', 'nyc', 'c8', 'time', 'nodemon', 'env-cmd', 'with-env', 'xvfb-run', 'start-server-and-test']);
const BINARIES: Record<string, JsRunner> = {
  jest: 'jest', 'jest-cli': 'jest', vitest: 'vitest', mocha: 'mocha', _mocha: 'mocha', ava: 'ava', jasmine: 'jasmine',
  wtr: 'web-test-runner', 'web-test-runner': 'web-test-runner',
};
const SUBCOMMANDS: Record<string, Record<string, JsRunner>> = {
  playwright: { test: 'playwright' }, cypress: { run: 'cypress', open: 'cypress' }, bun: { test: 'bun' }, deno: { test: 'deno' },
  'react-scripts': { test: 'cra' }, craco: { test: 'cra' }, 'react-app-rewired': { test: 'cra' },
};
// node options that take their value as the next word.
const DELEGATE_FLAGS = new Set(['-r', '--recursive', '--workspaces', '-ws', '--filter', '-F', 'workspaces']);
const NODE_VALUE_OPTS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '--test-reporter', '--test-reporter-destination',
  '--test-name-pattern', '--test-skip-pattern', '--test-concurrency', '--test-timeout', '--env-file', '--conditions', '-C', '--test-shard']);

const KNOWN = new Set([...Object.keys(BINARIES), ...Object.keys(SUBCOMMANDS), 'node', 'tsx', 'npm', 'yarn', 'pnpm', 'run-s', 'run-p', 'npm-run-all', 'turbo', 'lerna', 'nx']);

/**
 * Follows `scripts.test` through `npm run`/`yarn`/`pnpm`/`run-s`/`npm-run-all` and wrappers such as
 * `cross-env` to the runner calls it makes. Never executes anything.
 *
 * @example
 * planTestScript({ test: 'cross-env CI=1 npm run unit', unit: 'jest --ci' });
 * // { missing: false, delegates: false, invocations: [{ runner: 'jest', args: ['--ci'], quoted: [false] }] }
 */
export function planTestScript(scripts: Record<string, unknown> | undefined): ScriptPlan {
  const test = scripts?.test;
  if (typeof test !== 'string' || PLACEHOLDER.test(test)) return { missing: true, invocations: [], delegates: false };
  const invocations: Invocation[] = [];
  let delegates = false;
  const seen = new Set<string>();

  const runScript = (name: string): void => {
    const body = scripts?.[name];
    if (typeof body !== 'string' || seen.has(name)) return;
    seen.add(name);
    // npm runs `pre<name>` and `post<name>` around a script.
    for (const step of [`pre${name}`, null, `post${name}`]) {
      if (step === null) for (const cmd of parseShell(body)) runCommand(cmd.argv, cmd.quoted);
      else runScript(step);
    }
  };

  const runCommand = (argv: readonly string[], quoted: readonly boolean[]): void => {
    const first = argv[0];
    if (first === undefined) return;
    const name = base(first);
    if (WRAPPERS.has(name)) {
      // `cross-env A=1 jest`, `c8 --reporter lcov mocha`: the real command is the first word we know.
      const j = argv.findIndex((a, k) => k > 0 && KNOWN.has(base(a)));
      if (j !== -1) runCommand(argv.slice(j), quoted.slice(j));
      return;
    }
    const rest = argv.slice(1);
    const restQ = quoted.slice(1);
    if (name === 'npm' || name === 'yarn' || name === 'pnpm' || name === 'bun') {
      if (rest.some((a) => DELEGATE_FLAGS.has(a) || a.startsWith('--filter='))) { delegates = true; return; }
      let k = rest.findIndex((a) => !a.startsWith('-'));
      let cmd = rest[k];
      if (cmd === 'exec' || cmd === 'dlx' || cmd === 'x') { runCommand(rest.slice(k + 1), restQ.slice(k + 1)); return; }
      if (cmd === 'run' || cmd === 'run-script') { k = rest.findIndex((a, j) => j > k && !a.startsWith('-')); cmd = rest[k]; }
      else if (name === 'npm' && cmd !== 'test' && cmd !== 't') return;
      else if (name === 'bun' && cmd === 'test') { invocations.push({ runner: 'bun', args: rest.slice(k + 1), quoted: restQ.slice(k + 1) }); return; }
      if (cmd === 't') cmd = 'test';
      if (cmd === undefined) return;
      // `yarn jest` runs the script `jest` if there is one, else the binary.
      if (typeof scripts?.[cmd] === 'string') runScript(cmd);
      else runCommand(rest.slice(k), restQ.slice(k));
      return;
    }
    if (name === 'run-s' || name === 'run-p' || name === 'npm-run-all') {
      for (const pattern of rest.filter((a) => !a.startsWith('-'))) {
        const re = globToRegExp(pattern.replace(/:/g, '/'));
        for (const s of Object.keys(scripts ?? {})) if (re.test(s.replace(/:/g, '/'))) runScript(s);
      }
      return;
    }
    if (name === 'turbo' || name === 'lerna' || name === 'nx' || name === 'ultra' || name === 'wsrun') { delegates = true; return; }
    if (name === 'node' || name === 'tsx') {
      const testAt = rest.findIndex((a) => a === '--test' || a.startsWith('--test='));
      if (testAt !== -1) return pushNode(rest, restQ);
      const script = rest.find((a) => !a.startsWith('-'));
      // `node node_modules/.bin/jest`, `node ./node_modules/mocha/bin/mocha.js`.
      const bin = script && /node_modules\/(?:\.bin\/)?([\w@.-]+)/.exec(script);
      if (bin && script) runCommand([bin[1]!, ...rest.slice(rest.indexOf(script) + 1)], [false, ...restQ.slice(rest.indexOf(script) + 1)]);
      return;
    }
    const direct = BINARIES[name];
    if (direct) { invocations.push({ runner: direct, args: rest, quoted: restQ }); return; }
    const sub = SUBCOMMANDS[name]?.[rest[0] ?? ''];
    if (sub) invocations.push({ runner: sub, args: rest.slice(1), quoted: restQ.slice(1) });
  };

  const pushNode = (rest: readonly string[], restQ: readonly boolean[]): void => {
    const args: string[] = [];
    const q: boolean[] = [];
    for (let j = 0; j < rest.length; j++) {
      const a = rest[j]!;
      if (NODE_VALUE_OPTS.has(a)) { j++; continue; }
      if (a.startsWith('-')) continue;
      args.push(a);
      q.push(restQ[j]!);
    }
    invocations.push({ runner: 'node-test', args, quoted: q });
  };

  runScript('test');
  return { missing: false, invocations, delegates };
}

function base(word: string): string {
  const i = word.lastIndexOf('/');
  return i === -1 ? word : word.slice(i + 1);
}

