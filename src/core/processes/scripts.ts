/**
 * What a named script of a project runs: a `package.json` script (its text, through `sh -c` with the
 * project's `node_modules/.bin` first on PATH, as npm runs it), a Procfile process (its command, through
 * `sh -c`) or a Makefile target (`make TARGET`). Read from the project's files when a start is requested,
 * each file with the scanner's care: no symlinks followed, regular files of 1 MiB at most.
 */
import { constants, promises as fsp } from 'node:fs';
import { delimiter, join } from 'node:path';
import { httpError } from '../errors.ts';

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
}

const MAX_FILE = 1 << 20;

/** A project file's text, or undefined when absent, a link, not a regular file or too big. */
async function readProjectFile(dir: string, name: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await fsp.open(join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_FILE) return undefined;
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

/**
 * The plan for `script` in `dir`; without a name, the project's usual one: `dev`, else `start`, else the
 * Procfile's `web`. 404 when the project has no such script.
 */
export async function planScript(dir: string, script: string | undefined): Promise<ScriptPlan> {
  const [pkg, procfile, makefile] = await Promise.all(['package.json', 'Procfile', 'Makefile'].map((f) => readProjectFile(dir, f)));
  const scripts = packageScripts(pkg);
  const processes = procfileProcesses(procfile);
  const targets = makeTargets(makefile);
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
    if (!plan) throw httpError(404, 'SCRIPT_NOT_FOUND', `No script "${script}" in the project's package.json, Procfile or Makefile`);
    return plan;
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
