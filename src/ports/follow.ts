/**
 * Following a package's own scripts: `npm run dev -- --port 4000`, `pnpm with-env next dev`, `yarn serve`,
 * `bun run dev`, `npm start`, `run-p dev:*`. A call of one of the package's scripts reads as that script's
 * text plus the extra arguments, so `pnpm with-env next dev` (with `with-env: dotenv -e ../../.env --`)
 * reads as `dotenv -e ../../.env -- next dev`. Kept in one small module so it can join the shell-program
 * reader of src/readers/ later; the caller (command.ts) owns the depth cap, the step budget and the cycle guard.
 */

/** One expanded call: the script called and the line it stands for. */
export interface ScriptCall {
  readonly name: string;
  readonly line: string;
}

const MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const RUN_VERBS = new Set(['run', 'run-script', 'rum', 'urn']);
/** npm's own lifecycle shorthands: `npm start` runs the `start` script. */
const NPM_SHORTHANDS = new Set(['start', 'stop', 'restart', 'test', 't', 'tst']);
/** Flags that point the manager at another package: its scripts are not this package's. */
const ELSEWHERE =
  /^(?:-F|--filter(?:=.*)?|-C|--dir(?:=.*)?|--prefix(?:=.*)?|--cwd(?:=.*)?|-w|--workspace(?:=.*)?|-r|--recursive|-ws|--workspaces)$/;
/** npm-run-all and its short forms: each argument names a script (`dev:*` a family of them). */
const RUN_ALL = new Set(['npm-run-all', 'npm-run-all2', 'run-p', 'run-s']);
/** How many scripts one `run-p pattern` may stand for. */
const MAX_MATCHES = 20;

/**
 * The scripts `argv` calls, read from its first word, or undefined when it calls none of `scripts`.
 *
 * @example
 * scriptCalls(['pnpm', 'with-env', 'next', 'dev'], new Map([['with-env', 'dotenv -e ../../.env --']]));
 * // [{ name: 'with-env', line: "dotenv -e ../../.env -- 'next' 'dev'" }]
 */
export function scriptCalls(
  argv: readonly string[], scripts: ReadonlyMap<string, string> | undefined, composer?: ReadonlyMap<string, string>,
): ScriptCall[] | undefined {
  const word = argv[0] === undefined ? '' : argv[0].slice(argv[0].lastIndexOf('/') + 1);
  if (word === 'composer') return composer ? composerCall(argv, composer) : undefined;
  if (!scripts) return undefined;
  if (RUN_ALL.has(word)) return runAll(argv.slice(1), scripts);
  if (!MANAGERS.has(word)) return undefined;
  let i = 1;
  while (i < argv.length && argv[i]!.startsWith('-')) {
    if (ELSEWHERE.test(argv[i]!)) return undefined;
    i++;
  }
  let name = argv[i];
  if (name !== undefined && RUN_VERBS.has(name)) {
    for (i++; i < argv.length && argv[i]!.startsWith('-'); i++) if (ELSEWHERE.test(argv[i]!)) return undefined;
    name = argv[i];
  } else if (word === 'npm' && name !== undefined && !NPM_SHORTHANDS.has(name)) {
    return undefined; // `npm install`, `npm exec`: npm runs a script only through `run` or a shorthand
  }
  if (name === undefined) return undefined;
  if (word === 'npm' && (name === 't' || name === 'tst')) name = 'test';
  const text = scripts.get(name);
  if (text === undefined) return undefined;
  let args = argv.slice(i + 1);
  // npm reads its own flags anywhere before `--`: `npm start --prefix client` runs client's script.
  const dashes = args.indexOf('--');
  if (word === 'npm' && (dashes === -1 ? args : args.slice(0, dashes)).some((a) => ELSEWHERE.test(a))) return undefined;
  if (args[0] === '--') args = args.slice(1);
  return [{ name, line: args.length === 0 ? text : `${text} ${args.map(quote).join(' ')}` }];
}

/** `composer run X args`, `composer run-script X`, `composer X`: named `composer:X` on the follow stack. */
function composerCall(argv: readonly string[], composer: ReadonlyMap<string, string>): ScriptCall[] | undefined {
  let i = 1;
  while (i < argv.length && argv[i]!.startsWith('-')) {
    if (/^(?:-d|--working-dir(?:=.*)?)$/.test(argv[i]!)) return undefined;
    i++;
  }
  if (argv[i] === 'run' || argv[i] === 'run-script') for (i++; i < argv.length && argv[i]!.startsWith('-'); ) i++;
  const name = argv[i];
  const text = name === undefined ? undefined : composer.get(name);
  if (text === undefined) return undefined;
  let args = argv.slice(i + 1);
  if (args[0] === '--') args = args.slice(1);
  return [{ name: `composer:${name!}`, line: args.length === 0 ? text : `${text} ${args.map(quote).join(' ')}` }];
}

/** `run-p dev:api dev:web`, `npm-run-all --parallel "dev:*"`: the named scripts, flags and their values skipped. */
function runAll(words: readonly string[], scripts: ReadonlyMap<string, string>): ScriptCall[] {
  const out: ScriptCall[] = [];
  for (const w of words) {
    if (w.startsWith('-')) continue;
    if (!w.includes('*')) {
      const text = scripts.get(w);
      if (text !== undefined) out.push({ name: w, line: text });
      continue;
    }
    // npm-run-all's `*` matches within one `:` segment, `**` across them.
    const source = w.split('**').map((part) => part.split('*').map(escape).join('[^:]*')).join('.*');
    const pattern = new RegExp(`^${source}$`);
    for (const [name, text] of scripts) {
      if (out.length >= MAX_MATCHES) break;
      if (pattern.test(name)) out.push({ name, line: text });
    }
  }
  return out;
}

const escape = (text: string): string => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;
