import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve, sep } from 'node:path';
import type { Project } from '../core/types.ts';
import { CliError, type Client } from './client.ts';

/** `~` and `~/x` as the API expands them (a shell leaves a quoted `'~/x'` alone). */
export function expandHome(path: string, home = homedir()): string {
  return path === '~' ? home : path.startsWith('~/') ? home + path.slice(1) : path;
}

/** The real path of `arg` when it names an existing file or directory, else undefined. */
function realPath(arg: string): string | undefined {
  try {
    return realpathSync(resolve(expandHome(arg)));
  } catch {
    return undefined;
  }
}

/** The registered project whose directory is `path` or holds it (the deepest such), if any. */
export function projectHolding(projects: readonly Project[], path: string): Project | undefined {
  let best: Project | undefined;
  for (const p of projects) {
    const holds = path === p.path || path.startsWith(p.path.endsWith(sep) ? p.path : p.path + sep);
    if (holds && (!best || p.path.length > best.path.length)) best = p;
  }
  return best;
}

/**
 * A project as a user names it: an id (digits), a directory (the project's own or any folder inside
 * it: running a command in `src/` of a project means that project), or a name. A directory wins over
 * a name, since it is what the user is standing in; a name two projects share is refused with their ids.
 */
export async function findProject(client: Client, ref: string | undefined): Promise<Project> {
  const arg = ref ?? '.';
  if (/^\d+$/.test(arg)) return (await client.request('GET', `/api/projects/${arg}`)).body as Project;
  const projects = (await client.request('GET', '/api/projects')).body as Project[];
  const path = realPath(arg);
  if (path !== undefined) {
    const holder = projectHolding(projects, path);
    if (holder) return holder;
  }
  const named = projects.filter((p) => p.name === arg);
  if (named.length === 1) return named[0]!;
  if (named.length > 1) {
    throw new CliError(`${named.length} projects are named "${arg}" `
      + `(${named.map((p) => `#${p.id}`).join(', ')}); name one by its id`);
  }
  if (path !== undefined) {
    throw new CliError(`${path} is not in a registered project; add it with \`projdex add ${arg}\``);
  }
  throw new CliError(`No project has the id, name or directory "${arg}"; \`projdex ls\` lists them`);
}
