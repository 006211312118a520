/**
 * The commands a JS/TS file a package script runs (`node scripts/test.js`, `./scripts/test.mjs`) starts,
 * read without running it: the literal arguments of child_process calls (`execSync('jest --ci')`,
 * `spawn('mocha', ['test/**'])`, `spawnSync`, `execFileSync`, `fork`), cross-spawn's `spawn.sync`, execa
 * (`execa('vitest', ['run'])`, `execaCommand('...')`) and shelljs (`shell.exec('...')`). A command line
 * given as one string is a shell text; a command with an argument array is run without a shell, so each
 * argument is one quoted word (a brace glob in it reaches the runner as written). Calls whose command or
 * arguments are computed are counted, not guessed.
 */

import { createLiteralReader, isComputed, type Lit } from '../../../readers/js/literal.ts';

/**
 * What a JS file starts: shell lines to follow, how many calls could not be read, and whether a line is the
 * script's own arguments run as a command (a wrapper such as `node bin/hotfix.js mocha test/`).
 */
export interface NodeScriptCommands { readonly lines: string[]; readonly computed: number; readonly forwards: boolean }

// Calls whose first argument is a whole shell command line.
const LINE_CALLS = new Set(['execSync', 'exec', 'execaCommand', 'execaCommandSync', 'command', 'commandSync']);
// Calls given a command and an argument array.
const ARGV_CALLS = new Set(['spawn', 'spawnSync', 'execFile', 'execFileSync', 'execa', 'execaSync', 'sync', 'fork', 'crossSpawn']);
const ALL = new Set([...LINE_CALLS, ...ARGV_CALLS]);
// `x.exec(...)` is a shell line only on these objects (`regex.exec(text)` is not a command).
const EXEC_OBJECTS = /^(shell|sh|shelljs|cp|child_process|childProcess|proc|execa)$/;
const MAX_LINES = 64;

/**
 * The command lines a JS file's child-process calls start, in source order.
 *
 * @example
 * nodeScriptCommands("const { spawnSync } = require('child_process');\nspawnSync('mocha', ['test/**\/*.spec.{js,ts}']);");
 * // { lines: ["mocha 'test/**\/*.spec.{js,ts}'"], computed: 0, forwards: false }
 */
export function nodeScriptCommands(text: string, scriptArgs = ''): NodeScriptCommands {
  const lines: string[] = [];
  let computed = 0;
  let forwards = false;
  // A script that reads its own arguments and spawns a computed command runs what it is given.
  const readsArgs = scriptArgs !== '' && /\bprocess\.argv\b/.test(text);
  for (const { callee, args } of createLiteralReader(text).callsOf(ALL)) {
    const [object, name] = callee.includes('.') ? callee.split('.') as [string, string] : ['', callee];
    if (name === 'exec' && object !== '' && !EXEC_OBJECTS.test(object)) continue;
    if (name === 'sync' && !/spawn/i.test(object)) continue;
    const first = args[0];
    if (LINE_CALLS.has(name) && !(name === 'command' && object !== 'execa')) {
      if (typeof first === 'string') lines.push(first);
      else computed++;
    } else if (ARGV_CALLS.has(name)) {
      const argv = typeof first === 'string' ? (name === 'fork' ? ['node', first] : [first]) : undefined;
      const rest = argWords(args[1]);
      if (readsArgs && rest === undefined && !forwards) {
        lines.push(argv === undefined ? scriptArgs : `${argv.join(' ')} ${scriptArgs}`);
        forwards = true;
        continue;
      }
      if (argv === undefined || rest === undefined) { computed++; continue; }
      lines.push([argv[0]!, ...[...argv.slice(1), ...rest].map(quote)].join(' '));
    }
    if (lines.length >= MAX_LINES) break;
  }
  return { lines, computed, forwards };
}

/** An argument array's words; none when absent or an options object; undefined when any is computed. */
function argWords(value: Lit | undefined): string[] | undefined {
  if (value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value) && !isComputed(value))) return [];
  if (!Array.isArray(value)) return undefined;
  const words: string[] = [];
  for (const v of value) {
    // `...process.argv.slice(2)`: the script's own arguments, none when npm runs it without any.
    if (isComputed(v) && v.spread && /process\.argv/.test(v.computed)) continue;
    if (typeof v !== 'string') return undefined;
    words.push(v);
  }
  return words;
}

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
