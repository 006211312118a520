import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, parse, resolve, sep } from 'node:path';
import { DISCOVER_DEPTH } from '../core/roots.ts';
import type { Project } from '../core/types.ts';
import { CliError, type Client } from './client.ts';
import { json, print, type Out } from './output.ts';
import { expandHome } from './project-ref.ts';

const real = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path; // the API says what is wrong with it, naming it
  }
};

/**
 * Why registering `path` would be a mistake, or undefined: the home directory (a scan would walk every
 * cache and install in it) and a folder that holds registered projects (their tests would count twice).
 */
function guard(path: string, projects: readonly Project[], home: string): string | undefined {
  if (path === parse(path).root) return undefined; // the API refuses a filesystem root in its own words
  if (path === real(home)) {
    return `${path} is your home directory: a scan would walk every cache and install in it `
      + '(.npm, .cache, ...); register the projects in it with `projdex add --all ~`, '
      + 'or add --force to register it anyway';
  }
  const inside = projects.filter((p) => p.path.startsWith(path.endsWith(sep) ? path : path + sep));
  if (inside.length > 0) {
    const named = inside.slice(0, 3).map((p) => `#${p.id} ${p.name}`).join(', ')
      + (inside.length > 3 ? ', ...' : '');
    return `${path} holds ${inside.length} registered project${inside.length === 1 ? '' : 's'} (${named}):`
      + ' registering it too would count their tests twice; add --force to register it anyway';
  }
  return undefined;
}

/** `projdex add [DIR] [--name N] [--force]` and `projdex add --all DIR [--depth N]`. */
export async function add(
  client: Client,
  out: Out,
  positionals: string[],
  { home = homedir() } = {},
): Promise<number> {
  const { values } = out;
  if (values.all) {
    const root = positionals[0];
    if (!root) throw new CliError('add --all needs a folder: projdex add --all DIR', 2);
    const { max } = DISCOVER_DEPTH;
    if (values.depth !== undefined && !(/^\d{1,2}$/.test(values.depth) && Number(values.depth) <= max)) {
      throw new CliError(`--depth must be an integer from 0 to ${max}, got "${values.depth}"`, 2);
    }
    const body = {
      root: resolve(expandHome(root, home)),
      ...(values.depth === undefined ? {} : { depth: Number(values.depth) }),
    };
    const answer = await client.request('POST', '/api/projects/discover', body);
    const found = answer.body as { added: Project[]; existing: Project[]; truncated: boolean };
    if (values.json) return json(out, found), 0;
    for (const p of found.added) print(out, `added #${p.id} ${p.name}  ${p.path}`);
    print(out, `${found.added.length} added, ${found.existing.length} already registered`);
    if (found.truncated) {
      print(out, 'note: stopped after reading 20,000 folders; name a smaller folder or a lower --depth');
    }
    return 0;
  }
  if (values.depth !== undefined) {
    throw new CliError('--depth goes with --all: projdex add --all DIR --depth N', 2);
  }
  const path = real(resolve(expandHome(positionals[0] ?? '.', home)));
  if (!values.force) {
    const why = guard(path, (await client.request('GET', '/api/projects')).body as Project[], home);
    if (why) throw new CliError(why);
  }
  // `/` has no folder name; sending the path lets the API give its own reason (a filesystem root).
  const name = values.name ?? (basename(path) || path);
  let answer;
  try {
    answer = await client.request('POST', '/api/projects', { name, path }, [409]);
  } catch (error) {
    // The API's texts are the spec's ("Path does not exist"); the CLI says which path it means.
    if (error instanceof CliError && /^Path (does not exist|must be a directory)$/.test(error.message)) {
      throw new CliError(`${error.message}: ${path}`);
    }
    throw error;
  }
  const project = (answer.status === 409 ? answer.body.project : answer.body) as Project;
  if (values.json) return json(out, { added: answer.status === 201, project }), 0;
  print(out, `${answer.status === 201 ? 'added' : 'already registered:'} `
    + `#${project.id} ${project.name}  ${project.path}`);
  return 0;
}
