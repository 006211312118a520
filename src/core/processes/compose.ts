/**
 * Compose services as startable scripts, named `compose:SERVICE`. A service's command runs inside its image,
 * so starting one means `docker compose -f FILE up --timeout 3 SERVICE` (or `docker-compose` with the same
 * arguments where only that is installed) in the project's directory. The services are read when a start is requested, from the
 * compose file at the project's root (`compose.yaml`, `compose.yml`, `docker-compose.yaml`,
 * `docker-compose.yml`, in Compose's own order) and from every other compose file the last scan took ports
 * from; the first file defining a service is the one started.
 */
import { constants, promises as fsp } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { parseYaml } from '../../readers/yaml.ts';
import { composeServices } from '../../ports/compose-files.ts';
import { httpError } from '../errors.ts';

/** The prefix of a compose service's script name: `compose:web`. */
export const COMPOSE_PREFIX = 'compose:';

/** The files Compose itself looks for at a project's root, in its order. */
export const ROOT_COMPOSE_FILES = ['compose.yaml', 'compose.yml', 'docker-compose.yaml', 'docker-compose.yml'];

/** Compose's own rule for a service name; it also keeps a name from reading as an option (`-d`). */
const SERVICE_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
/** Compose files read per start at most. */
const MAX_FILES = 20;

/** A service and the compose file (relative POSIX path) that defines it. */
export interface ComposeService {
  readonly name: string;
  readonly file: string;
}

/** The files to look in: the root's default names first, then the scan's other compose files (yaml only). */
export function composeFiles(recordedSources: Iterable<string>): string[] {
  const out = [...ROOT_COMPOSE_FILES];
  const recorded = [...new Set(recordedSources)].filter((f) => /\.ya?ml$/i.test(f) && !out.includes(f)).sort();
  return [...out, ...recorded].slice(0, MAX_FILES);
}

/** The services found, and the files not read because they were too big. */
export interface ComposeServices {
  readonly services: ComposeService[];
  readonly skipped: string[];
}

/**
 * The services of the project's compose files, each under the first file that defines it; with `wanted`,
 * files are read only until one defines that service. `read` gives a file's text, undefined when absent or
 * refused, null when too big. A file that is not a compose document is passed over. The parses run on the
 * caller's thread, so the loop yields between files.
 */
export async function listServices(
  files: readonly string[], read: (file: string) => Promise<string | undefined | null>, wanted?: string,
): Promise<ComposeServices> {
  const services: ComposeService[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const text = await read(file);
    if (text === null) skipped.push(file);
    if (typeof text !== 'string') continue;
    let found: Record<string, unknown> | undefined;
    try {
      found = composeServices(parseYaml(text));
    } catch {
      found = undefined; // The yaml reader gave up on it: not a file to start from.
    }
    for (const name of Object.keys(found ?? {})) {
      if (!SERVICE_NAME.test(name) || seen.has(name)) continue;
      seen.add(name);
      services.push({ name, file });
    }
    if (wanted !== undefined && seen.has(wanted)) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { services, skipped };
}

/** The first executable file called `name` on `path` (a PATH value), else undefined. */
export async function findExecutable(name: string, path: string | undefined): Promise<string | undefined> {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue; // A relative PATH entry would depend on the project's files.
    const file = join(dir, name);
    try {
      const info = await fsp.stat(file);
      if (!info.isFile()) continue;
      await fsp.access(file, constants.X_OK);
      return file;
    } catch { /* not here */ }
  }
  return undefined;
}

/**
 * Seconds compose gives a container to stop once it is told to (on SIGTERM it stops what it started): under
 * projdex's 5 s before SIGKILL, so the containers are stopped, not left running by a killed compose.
 * Compose's own default is 10 s, which a container whose main process ignores SIGTERM always takes.
 */
export const COMPOSE_STOP_SECONDS = 3;

/** How to run `up SERVICE`: `docker compose`, else `docker-compose`; 422 when neither is installed. */
export async function composeCommand(service: ComposeService, path: string | undefined): Promise<{
  program: string; args: string[]; command: string;
}> {
  // A file named `-x.yml` must not read as an option: `./-x.yml`. A service name cannot start with `-`.
  const file = service.file.startsWith('-') ? `./${service.file}` : service.file;
  const tail = ['-f', file, 'up', '--timeout', String(COMPOSE_STOP_SECONDS), service.name];
  const docker = await findExecutable('docker', path);
  if (docker) return { program: docker, args: ['compose', ...tail], command: ['docker', 'compose', ...tail].join(' ') };
  const legacy = await findExecutable('docker-compose', path);
  if (legacy) return { program: legacy, args: tail, command: ['docker-compose', ...tail].join(' ') };
  throw httpError(422, 'DOCKER_NOT_FOUND', `Cannot start compose service "${service.name}": no docker or docker-compose `
    + 'executable is on the server\'s PATH (a compose service runs in its image, through Docker)');
}
