/**
 * Package-manager and monorepo-tool commands of a package script: `npm|yarn|pnpm|bun [run] x -- args`,
 * `--prefix`/`-C`/`--cwd` directories, `pnpm -r`/`--filter`, `npm -ws`/`-w`, `yarn workspace(s)`,
 * `lerna run`, `turbo run`, `nx run-many|affected|run|<target> <project>` (see commands.ts).
 */

import type { Step } from './commands.ts';
import { notePattern, projectRegExp } from '../../../readers/safe-regex.ts';

/** The filter of `nx <target>` without a project: the workspace's default project (reach.ts). */
export const NX_DEFAULT_PROJECT = '\0nx-default-project';

export function packageManager(name: string, rest: string[], restQ: boolean[], hasScript: (n: string) => boolean): Step {
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
  if (re && name === 'pnpm') {
    const names = projectRegExp(re[1]!, '', (why) => notePattern(`\`pnpm run ${cmd.slice(0, 80)}\` is not followed: ${why}`));
    return names ? { kind: 'script', names, args: argv, quoted: argq } : { kind: 'unknown', name: cmd };
  }
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

export function monorepoTool(name: string, rest: string[]): Step {
  const filters: string[] = [];
  const scripts: string[] = [];
  const words = rest.filter((a) => !a.startsWith('-') || /^--(filter|scope|projects|target|targets)=/.test(a));
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const f = /^(?:--filter|-F|--scope|--projects|-p)(?:=(.*))?$/.exec(a);
    if (f) { const v = f[1] ?? rest[++i] ?? ''; filters.push(...v.split(',')); continue; }
    const t = /^(?:--target|--targets|-t)(?:=(.*))?$/.exec(a);
    if (t) { scripts.push(...(t[1] ?? rest[++i] ?? '').split(',')); continue; }
    // `nx run-many -t test --exclude e2e,docs`: negated filters.
    const x = name === 'nx' ? /^--exclude(?:=(.*))?$/.exec(a) : null;
    if (x) { filters.push(...(x[1] ?? rest[++i] ?? '').split(',').filter(Boolean).map((p) => '!' + p)); continue; }
  }
  const positional = rest.filter((a, i) => !a.startsWith('-') && !/^(?:--filter|-F|--scope|--projects|-p|--target|--targets|-t|--concurrency|--cache-dir|--exclude)$/.test(rest[i - 1] ?? ''));
  void words;
  if (name === 'nx') {
    const [sub, ...more] = positional;
    if (sub === 'run-many' || sub === 'affected') return { kind: 'delegate', tool: `nx ${sub}`, scripts: scripts.length > 0 ? scripts : ['test'], filters: filters.length > 0 ? filters : null, args: [] };
    if (sub === 'run' && more[0]?.includes(':')) { const [p, target] = more[0].split(':'); return { kind: 'delegate', tool: 'nx run', scripts: [target!], filters: [p!], args: [] }; }
    if (sub !== undefined && more[0] !== undefined) return { kind: 'delegate', tool: 'nx', scripts: [sub], filters: [more[0]], args: [] };
    // `nx test` alone: nx.json's defaultProject (or the project in the current directory); reach.ts resolves it.
    if (sub !== undefined && !/^(run-many|affected|run|graph|show|reset|format|migrate|g|generate|init|daemon|report|list|release)$/.test(sub) && !sub.includes(':')) {
      return { kind: 'delegate', tool: 'nx', scripts: [sub], filters: [NX_DEFAULT_PROJECT], args: [] };
    }
    return { kind: 'unknown', name: 'nx' };
  }
  const list = positional[0] === 'run' || positional[0] === 'exec' ? positional.slice(1) : positional;
  const targets = name === 'turbo' ? list : list.slice(0, 1);
  return { kind: 'delegate', tool: name, scripts: targets.length > 0 ? targets : ['test'], filters: filters.length > 0 ? filters : null, args: [] };
}


// concurrently options that take a value (`-n unit,e2e -c blue,green`).
const CONCURRENTLY_VALUES = /^(-n|--names|-c|--prefix-colors|-p|--prefix|-s|--success|-m|--max-processes|-l|--prefix-length|-t|--timestamp-format|--restart-tries|--restart-after|--default-input-target|--name-separator|--pad-prefix|-P|--passthrough-arguments|--teardown)$/;

/** `concurrently -n a,b "npm:test:*" "jest --ci"`: each command (`npm:x` / `yarn:x` / `pnpm:x` / `bun:x` is that script). */
export function concurrently(rest: string[], hasScript: (n: string) => boolean): Step {
  const commands: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (CONCURRENTLY_VALUES.test(a)) { i++; continue; }
    if (a.startsWith('-')) continue;
    const short = /^(npm|yarn|pnpm|bun):(.+)$/.exec(a);
    // run-p reads `test:*` as a glob over script names, as concurrently does.
    commands.push(short ? `run-p '${short[2]!.replace(/'/g, '')}'` : hasScript(a) ? `npm run ${a}` : a);
  }
  return { kind: 'program', text: commands.join(' ; ') };
}
