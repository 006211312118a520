/**
 * What a named script of a project runs: a `package.json` script (its text, through `sh -c` with the
 * project's `node_modules/.bin` first on PATH, as npm runs it), a Procfile process (its command, through
 * `sh -c`), a Makefile target (`make TARGET`) or a compose service (`compose:SERVICE`, see compose.ts). Read
 * from the project's files when a start is requested, each file with the scanner's care: no symlinks
 * followed, regular files of 1 MiB at most.
 */
import { constants, promises as fsp } from 'node:fs';
import { delimiter, join } from 'node:path';
import { httpError } from '../errors.ts';
import { COMPOSE_PREFIX, composeCommand, composeFiles, listServices, type ComposeService, type ComposeServices } from './compose.ts';

/** A script ready to spawn. */
export interface ScriptPlan {
  readonly script: string;
  /** Where it came from: `package.json`, `Procfile` or `Makefile`. */
  readonly source: string;
  /** What runs, as shown to the user. */
  readonly command: string;
  readonly program: string;
  readonly args: readonly string[];
  /** Directories put first on PATH. */
  readonly path: readonly string[];
  /** For a compose service: the service and its file (its declared ports are that service's rows). */
  readonly service?: ComposeService;
}

export interface PlanOptions {
  /** The files the last scan took ports from: compose files among them are looked in for services. */
  readonly recordedSources?: Iterable<string>;
  /** The PATH `docker` is looked up on. @default process.env.PATH */
  readonly searchPath?: string;
}

const MAX_FILE = 1 << 20;
/**
 * Compose files are read on the HTTP thread when a service is asked for: one of 128 KiB (thousands of lines,
 * far past real ones) parses in tens of milliseconds; a bigger one is named as not read.
 */
const MAX_COMPOSE_FILE = 128 << 10;

/**
 * A project file's text (`name` a relative POSIX path), or undefined when absent, a link, reached through a
 * link or `..`, or not a regular file; null when it is over `max` bytes.
 */
async function readProjectFile(dir: string, name: string, max = MAX_FILE): Promise<string | undefined | null> {
  if (name.split('/').some((part) => part === '..' || part === '')) return undefined;
  let handle;
  try {
    handle = await fsp.open(join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    if (info.size > max) return null;
    // A folder on the way swapped for a link would lead outside the project: the file must be where it says.
    const real = name.includes('/') ? await fsp.realpath(join(dir, name)).catch(() => '') : undefined;
    if (real !== undefined && real !== join(await fsp.realpath(dir), name)) return undefined;
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

function packageScripts(text: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (text === undefined) return out;
  try {
    const scripts = (JSON.parse(text) as { scripts?: unknown }).scripts;
    if (scripts && typeof scripts === 'object') {
      for (const [name, value] of Object.entries(scripts)) if (typeof value === 'string' && value.trim() !== '') out.set(name, value);
    }
  } catch { /* not JSON: no scripts */ }
  return out;
}

/** `name: command` lines of a Procfile. */
export function procfileProcesses(text: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of (text ?? '').split('\n')) {
    const match = /^([A-Za-z0-9_-]+):\s*(.+?)\s*$/.exec(line);
    if (match) out.set(match[1]!, match[2]!);
  }
  return out;
}

/** Explicit targets of a Makefile (`name:` at the start of a line; not `:=` assignments, not patterns). */
export function makeTargets(text: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const line of (text ?? '').split('\n')) {
    const match = /^([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*:(?!=)/.exec(line);
    if (match) out.add(match[1]!);
  }
  return out;
}

/** Names listed in a 404 at most. */
const MAX_LISTED = 30;

/**
 * The plan for `script` in `dir`; without a name, the project's usual one: `dev`, else `start`, else the
 * Procfile's `web` (a compose service is started only by its name, `compose:SERVICE`). 404 when the project
 * has no such script (naming the ones it has), 422 for a compose service when Docker is not installed.
 */
export async function planScript(
  dir: string, script: string | undefined, options: PlanOptions = {},
): Promise<ScriptPlan> {
  const [pkg, procfile, makefile] = (await Promise.all(['package.json', 'Procfile', 'Makefile']
    .map((f) => readProjectFile(dir, f)))).map((text) => text ?? undefined);
  const scripts = packageScripts(pkg);
  const processes = procfileProcesses(procfile);
  const targets = makeTargets(makefile);
  const services = (wanted?: string): Promise<ComposeServices> =>
    listServices(composeFiles(options.recordedSources ?? []),
      (file) => readProjectFile(dir, file, MAX_COMPOSE_FILE), wanted);
  const bin = [join(dir, 'node_modules', '.bin')];
  const shell = (name: string, source: string, text: string, path: readonly string[] = []): ScriptPlan =>
    ({ script: name, source, command: text, program: '/bin/sh', args: ['-c', text], path });
  const pick = (name: string): ScriptPlan | undefined => {
    if (scripts.has(name)) return shell(name, 'package.json', scripts.get(name)!, bin);
    if (processes.has(name)) return shell(name, 'Procfile', processes.get(name)!);
    if (targets.has(name)) return { script: name, source: 'Makefile', command: `make ${name}`, program: 'make', args: [name], path: [] };
    return undefined;
  };
  if (script !== undefined) {
    const plan = pick(script);
    if (plan) return plan;
    const wanted = script.startsWith(COMPOSE_PREFIX) ? script.slice(COMPOSE_PREFIX.length) : undefined;
    const found = await services(wanted);
    const service = found.services.find((s) => s.name === wanted);
    if (service) {
      const run = await composeCommand(service, options.searchPath ?? process.env.PATH);
      return { script, source: service.file, ...run, path: [], service };
    }
    // Asked for a service, the services come first (the list is cut at MAX_LISTED).
    const own = [...scripts.keys(), ...processes.keys(), ...targets];
    const composed = found.services.map((s) => COMPOSE_PREFIX + s.name);
    const names = [...new Set(wanted === undefined ? [...own, ...composed] : [...composed, ...own])];
    const shown = names.slice(0, MAX_LISTED).map((n) => (n.length > 80 ? `${n.slice(0, 80)}…` : n));
    const has = names.length === 0 ? 'it has none'
      : `it has ${shown.join(', ')}${names.length > MAX_LISTED ? `, and ${names.length - MAX_LISTED} more` : ''}`;
    const skipped = `${found.skipped.slice(0, 5).join(', ')}${found.skipped.length > 5 ? ', ...' : ''}`;
    const unread = found.skipped.length === 0 ? '' : `; not read, over ${MAX_COMPOSE_FILE >> 10} KiB: ${skipped}`;
    throw httpError(404, 'SCRIPT_NOT_FOUND',
      `No script "${script}" in the project's package.json, Procfile, Makefile or compose files: ${has}${unread}`);
  }
  const usual = (scripts.has('dev') && pick('dev')) || (scripts.has('start') && pick('start')) || (processes.has('web') && pick('web'));
  if (!usual) throw httpError(404, 'SCRIPT_NOT_FOUND', 'The project has no dev or start script and no Procfile web process: name a script');
  return usual;
}

/** PATH with `first` in front. */
export function withPath(env: NodeJS.ProcessEnv, first: readonly string[]): NodeJS.ProcessEnv {
  if (first.length === 0) return env;
  return { ...env, PATH: [...first, env.PATH ?? ''].filter((p) => p !== '').join(delimiter) };
}
