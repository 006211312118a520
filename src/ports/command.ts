import { parseShell, type ShellCommand } from '../readers/shell/parse.ts';
import { addressPort, isVariable, shDefaults, toPort } from './common.ts';
import { GENERIC_FLAGS, TOOLS, type Mode, type Tool, type ValueKind } from './tools.ts';
import { basename, joinPath } from '../rules/paths.ts';
import { envKind } from './kind.ts';
import { scriptCalls } from './follow.ts';
import { entryWords } from './entry-words.ts';

/** What one script line says about ports. */
export interface CommandPorts {
  /** Literal ports, in the order they appear. */
  readonly ports: number[];
  /**
   * Tool defaults that apply: serving modes run with no port given anywhere on the line. `key` is
   * `tool:port` (`vite:5173` for dev, `vite:4173` for preview) so a config naming that server's port can replace it.
   */
  readonly defaults: Array<{ readonly tool: string; readonly key: string; readonly port: number }>;
  /** Port values that name a variable (`-p $PORT`), for notes. */
  readonly unresolved: string[];
  /** Ports of client settings on the line (`DB_PORT=5432 node .`): connected to, not listened on (kind.ts). */
  readonly connect: number[];
  /** Files the line runs (`node server.js`, `nodemon src/app.ts`, `python app.py`), as written: entry.ts reads them. */
  readonly entries: string[];
}

export interface CommandOptions {
  /**
   * The package's own scripts, so `yarn serve` reads as a script, not the `serve` tool. Given with their
   * text (a Map), a call of one (`npm run dev -- -p 4000`, `pnpm with-env next dev`) is followed (follow.ts).
   */
  readonly scripts?: ReadonlySet<string> | ReadonlyMap<string, string>;
  /** composer.json scripts of the same directory, for `composer run X` and `@X` (composer.ts). */
  readonly composer?: ReadonlyMap<string, string>;
  /** The script this line is the text of (as follow.ts names it), so it is not re-entered. */
  readonly self?: string;
  /** The package's `main`, the file `node .` runs (scripts.ts). */
  readonly main?: string;
  /** Only ports the line (or a shell script it runs) writes down, no tool defaults: compose and Dockerfile lines. */
  readonly explicitOnly?: boolean;
  /** The line runs inside a container (a Dockerfile CMD, a compose command): its ports are `container` rows. */
  readonly container?: boolean;
}

interface Acc extends CommandPorts {
  explicit: boolean;
  pending: Array<{ tool: string; key: string; port: number }>;
  /** Scripts being followed, outermost first: a script calling itself again is not followed (cycle guard). */
  stack: string[];
  /** Lines read so far, against MAX_STEPS. */
  steps: number;
  /** Directory a `cd` moved to, relative to the line's own ('' = not moved; '/' = somewhere unknown). */
  cwd: string;
}

const PACKAGE_RUNNERS = new Set(['npx', 'pnpx', 'bunx']);
const MANAGERS = new Set(['yarn', 'pnpm', 'bun', 'npm']);
const RUNNER_VERBS = new Set(['exec', 'dlx', 'x']);
const RUN_PREFIXES = new Set(['bundle', 'poetry', 'pipenv', 'uv', 'pdm', 'rye', 'hatch']);
const INTERPRETERS = /^(python[\d.]*|py|ruby|node|php|tsx|ts-node)$/;
const PASSTHROUGH = new Set(['sudo', 'exec', 'time', 'nohup', 'command']);
const ENV_SETTERS = new Set(['cross-env', 'cross-env-shell', 'env', 'export']);
/** How deep lines nest (`sh -c`, `concurrently`, followed scripts), and how many lines one script may read. */
const MAX_DEPTH = 6;
const MAX_STEPS = 200;

/**
 * Reads the ports a shell line sets: tool flags (per-tool, see tools.ts), the generic `--port`,
 * `PORT=`/`*_PORT=` assignments (also through `cross-env`/`env`), and tool defaults when the line runs
 * a serving command and sets no port at all. Wrappers (`npx`, `yarn`, `bundle exec`, `python -m`,
 * `concurrently`, `nodemon --exec`, ...) are looked through.
 *
 * @example
 * portsInCommand('cross-env PORT=4000 next dev').ports; // [4000]
 * portsInCommand('tsc -p tsconfig.json && vite').defaults; // [{ tool: 'vite', key: 'vite:5173', port: 5173 }]
 */
export function portsInCommand(line: string, options: CommandOptions = {}): CommandPorts {
  const acc: Acc = {
    ports: [], defaults: [], unresolved: [], connect: [], entries: [], explicit: false, pending: [], stack: [], steps: 0, cwd: '',
  };
  if (options.self !== undefined) acc.stack.push(options.self);
  scanLine(line, options, acc, 0);
  if (!acc.explicit) acc.defaults.push(...acc.pending);
  return { ports: acc.ports, defaults: acc.defaults, unresolved: acc.unresolved, connect: acc.connect, entries: acc.entries };
}

function scanLine(line: string, options: CommandOptions, acc: Acc, depth: number): void {
  if (depth > MAX_DEPTH || ++acc.steps > MAX_STEPS) return;
  const cwd = acc.cwd;
  for (const command of parseShell(line)) {
    // `cd proxy && pnpm dev`: what follows runs in another directory (its own package's scripts).
    if (command.argv[0] === 'cd') {
      const to = command.argv[1] ?? '/';
      acc.cwd = to.startsWith('/') || to.startsWith('~') || to.includes('$') ? '/' : joinPath(acc.cwd, to);
      continue;
    }
    scanCommand(command, options, acc, depth);
  }
  acc.cwd = cwd;
}

function setEnv(name: string, value: string, acc: Acc): void {
  if (name !== 'PORT' && !name.endsWith('_PORT')) return;
  // Only PORT itself configures the server the line starts; DB_PORT and friends are still ports the project names.
  if (name === 'PORT') acc.explicit = true;
  if (envKind(name) === 'connect') {
    const port = toPort(shDefaults(value));
    if (port !== undefined) acc.connect.push(port);
  } else {
    readValue(value, 'port', acc);
  }
}

function readValue(value: string, kind: ValueKind, acc: Acc): void {
  const text = shDefaults(value);
  const port = kind === 'port' ? toPort(text) : kind === 'publish' ? publishedPort(text) : addressPort(text);
  if (port !== undefined) acc.ports.push(port);
  else if (isVariable(text)) acc.unresolved.push(value);
}

/** The host side of docker's `-p [ip:]host:container[/proto]` (`127.0.0.1:8080:80` -> 8080); none for `-p 80`. */
function publishedPort(text: string): number | undefined {
  const parts = text.replace(/\/\w+$/, '').replace(/^\[[^\]]*\]:/, '').split(':');
  return parts.length >= 2 ? toPort(parts[parts.length - 2]) : undefined;
}

function scanCommand({ env, argv }: ShellCommand, options: CommandOptions, acc: Acc, depth: number): void {
  for (const [name, value] of env) setEnv(name, value, acc);
  let i = 0;
  let interpreted = false;
  // Look through wrappers to the word that names the tool.
  while (i < argv.length) {
    const word = basename(argv[i]!);
    const next = argv[i + 1];
    const own = options.scripts instanceof Map ? options.scripts : undefined;
    const calls = acc.cwd !== '' ? undefined : scriptCalls(argv.slice(i), own, options.composer);
    if (calls) {
      for (const call of calls) {
        if (acc.stack.includes(call.name)) continue;
        acc.stack.push(call.name);
        scanLine(call.line, options, acc, depth + 1);
        acc.stack.pop();
      }
      return;
    }
    if (ENV_SETTERS.has(word)) {
      i++;
      while (i < argv.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[i]!) || argv[i]!.startsWith('-'))) {
        const eq = argv[i]!.indexOf('=');
        if (!argv[i]!.startsWith('-')) setEnv(argv[i]!.slice(0, eq), argv[i]!.slice(eq + 1), acc);
        else if (argv[i] === '-u') i++;
        i++;
      }
    } else if (PACKAGE_RUNNERS.has(word)) {
      i++;
      while (i < argv.length && argv[i]!.startsWith('-')) i += argv[i] === '-p' || argv[i] === '--package' ? 2 : 1;
    } else if (MANAGERS.has(word) && next !== undefined && RUNNER_VERBS.has(next)) {
      i += 2;
      while (i < argv.length && argv[i]!.startsWith('-')) i++;
    } else if (MANAGERS.has(word) && word !== 'npm' && next !== undefined && TOOLS.has(next) && !options.scripts?.has(next)) {
      i++;
    } else if (RUN_PREFIXES.has(word) && (next === 'exec' || next === 'run')) {
      i += 2;
    } else if (PASSTHROUGH.has(word)) {
      i++;
    } else if (word === 'dotenv' || word === 'env-cmd') {
      const dashes = argv.indexOf('--', i);
      if (dashes !== -1) i = dashes + 1;
      else for (i++; i < argv.length && argv[i]!.startsWith('-'); ) i += /^-[a-z]$|^--(file|environments?|path)$/.test(argv[i]!) ? 2 : 1;
    } else if (/^(?:ba|z|da)?sh$/.test(word) && next === '-c' && argv[i + 2] !== undefined) {
      return scanLine(argv[i + 2]!, options, acc, depth + 1);
    } else if (word === 'concurrently') {
      for (const arg of argv.slice(i + 1)) if (!arg.startsWith('-')) scanLine(arg, options, acc, depth + 1);
      return;
    } else if (word === 'nodemon' || word === 'ts-node-dev') {
      const exec = argv.findIndex((a, k) => k > i && (a === '--exec' || a === '-x'));
      if (exec !== -1 && argv[exec + 1] !== undefined) return scanLine(argv[exec + 1]!, options, acc, depth + 1);
      break;
    } else if (INTERPRETERS.test(word) && next !== undefined) {
      if (word === 'php' && next.startsWith('-S')) break;
      i++;
      while (i < argv.length && argv[i]!.startsWith('-') && argv[i] !== '-m') i++;
      if (argv[i] === '-m') i++;
      else interpreted = true;
      break;
    } else {
      break;
    }
  }
  const words = argv.slice(i);
  if (words.length === 0) return;
  if (acc.cwd !== '/') acc.entries.push(...entryWords(words, interpreted).map((w) => (acc.cwd === '' ? w : `${acc.cwd}/${w}`)));
  // `npx inngest-cli@latest dev`: the package runner's version tag is not part of the tool's name.
  const tool = TOOLS.get(basename(words[0]!).replace(/(?<=.)@[\w.^~-]*$/, ''));
  const found = tool ? findMode(tool, words) : undefined;
  const flags: Record<string, ValueKind> = found ? { ...GENERIC_FLAGS, ...found.mode.flags } : GENERIC_FLAGS;
  const before = acc.ports.length + acc.unresolved.length;
  readFlags(words, found ? found.at + 1 : 1, flags, acc);
  if (found?.mode.positional) {
    const arg = words.slice(found.at + 1).find((w) => !w.startsWith('-'));
    if (arg !== undefined) readValue(arg, found.mode.positional, acc);
  }
  if (acc.ports.length + acc.unresolved.length > before || hasFlag(words, flags)) acc.explicit = true;
  else if (tool && found && found.mode.default !== undefined && !found.mode.config?.some((f) => hasFlag(words, { [f]: 'port' })))
    acc.pending.push({ tool: tool.name, key: `${tool.name}:${found.mode.default}`, port: found.mode.default });
}

/** The serving mode a tool runs in: the first subcommand word naming a mode (or a non-serving one), else the bare mode. */
function findMode(tool: Tool, words: readonly string[]): { mode: Mode; key: string; at: number } | undefined {
  for (let k = 1; k < words.length; k++) {
    const w = words[k]!;
    if (w.startsWith('-')) continue;
    const pair = `${w} ${words[k + 1] ?? ''}`;
    if (tool.modes[pair]) return { mode: tool.modes[pair]!, key: pair, at: k + 1 };
    if (Object.hasOwn(tool.modes, w) && w !== '') return { mode: tool.modes[w]!, key: w, at: k };
    if (tool.skip?.includes(w)) return undefined;
  }
  return tool.modes[''] ? { mode: tool.modes['']!, key: '', at: 0 } : undefined;
}

function readFlags(words: readonly string[], from: number, flags: Readonly<Record<string, ValueKind>>, acc: Acc): void {
  for (let k = from; k < words.length; k++) {
    const w = words[k]!;
    if (!w.startsWith('-')) continue;
    const eq = w.indexOf('=');
    const name = eq === -1 ? w : w.slice(0, eq);
    if (Object.hasOwn(flags, name)) {
      const value = eq === -1 ? words[++k] : w.slice(eq + 1);
      if (value !== undefined) readValue(value, flags[name]!, acc);
    } else if (/^-[A-Za-z]\d/.test(w) && Object.hasOwn(flags, w.slice(0, 2))) {
      readValue(w.slice(2), flags[w.slice(0, 2)]!, acc); // -p3000
    }
  }
}

function hasFlag(words: readonly string[], flags: Readonly<Record<string, ValueKind>>): boolean {
  return words.some((w) => Object.hasOwn(flags, w.split('=')[0]!));
}
