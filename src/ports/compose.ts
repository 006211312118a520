import type { ScanContext } from '../rules/types.ts';
import { isRecord, shDefaults, toPort, type PortRow } from './common.ts';
import { parseDotenv, valuePort } from './dotenv.ts';
import { linePorts } from './scripts.ts';
import { composeCandidates, composeLoader, serviceChain } from './compose-files.ts';
import { dirname, joinPath } from '../rules/paths.ts';
import { envKinds, type PortKind } from './kind.ts';

/** Ranges larger than this are cut short (with a note): nobody means 60 000 rows. */
const MAX_RANGE = 100;

/**
 * Ports of compose services (every compose file, whatever its name: compose-files.ts), attributed to the
 * service, with what it `extends:` merged in (ports added, environment overridden, command replaced):
 * `ports:` in short syntax (`"8080:80"`, `"3000"`, `"127.0.0.1:8080:80/udp"`, ranges, `${PORT:-3000}:3000`)
 * and long syntax (`published`, else `target`): the host side, the port a developer opens, `listen` and
 * marked as published; a container port alone (`"3000"`, `{ target: 3000 }`) gets a random host port, so it
 * is a `container` row. `PORT`/`*_PORT` and URLs in `environment`, and ports in `command`/`entrypoint`, are
 * bound inside the container: `container` rows (a client setting stays `connect`), `listen` under
 * `network_mode: host`.
 */
export async function findComposePorts(ctx: ScanContext): Promise<PortRow[]> {
  const load = composeLoader(ctx);
  const perFile = await Promise.all((await composeCandidates(ctx)).map(async (file) => {
    const services = await load(file);
    if (services === undefined) return [];
    // Compose interpolates `${VAR}` from the `.env` beside the file: `"${MONGO_PORT}:27017"` with MONGO_PORT=27018.
    const envFile = joinPath(dirname(file), '.env');
    const envText = ctx.has(envFile) ? await ctx.read(envFile) : undefined;
    const vars = new Map(envText === undefined ? [] : parseDotenv(envText));
    const rows = await Promise.all(Object.entries(services).map(async ([name, service]) =>
      isRecord(service) ? serviceRows(ctx, name, await serviceChain(ctx, load, service, file), file, vars) : []));
    if (!isProductionCompose(file)) return rows.flat();
    const bound = rows.flat().filter((row) => row.kind !== 'connect');
    if (bound.length > 0) {
      ctx.note(`${file} is a production compose file (by its name or folder): its ports are listed as `
        + 'container ports, not as ports this machine listens on, and count in no collision');
    }
    // Nor published here: a production file's `80:80` does not make a dev file's container port 80 a host port.
    return rows.flat().map(({ publishes: _publishes, ...row }): PortRow =>
      (row.kind === 'connect' ? row : { ...row, kind: 'container' }));
  }));
  return perFile.flat();
}

/**
 * A compose file for a production or staging host, by its name (`docker-compose.prod.yml`,
 * `compose.production.yaml`, `compose.deploy.yml`, `docker-compose-staging.yml`) or its folder (`prod/`,
 * `production/`): the ports it publishes are the server's, not a developer's machine's.
 */
export function isProductionCompose(file: string): boolean {
  const base = file.slice(file.lastIndexOf('/') + 1).toLowerCase();
  if (/(?:^|[._-])(?:prod|production|deploy|deployment|staging|stage|release)(?=[._-])/.test(base)) return true;
  return /(?:^|\/)(?:prod|production)\//i.test(file);
}

/** Rows of one service, given its definition and the ones it extends (own first). */
function serviceRows(
  ctx: ScanContext, name: string, chain: ReadonlyArray<Record<string, unknown>>, file: string,
  vars: ReadonlyMap<string, string>,
): PortRow[] {
  const dir = dirname(file);
  const rows: PortRow[] = [];
  const first = (key: string): unknown => chain.find((s) => s[key] !== undefined)?.[key];
  const hostNet = first('network_mode') === 'host';
  for (const service of chain) {
    if (!Array.isArray(service.ports)) continue;
    for (const raw of service.ports) {
      const entry = typeof raw === 'string' ? interpolate(raw, vars) : isRecord(raw) ? interpolateLong(raw, vars) : raw;
      const ports = entryPorts(entry);
      if (ports.length > MAX_RANGE) {
        ctx.note(`Port range of service "${name}" in ${file} has ${ports.length} ports; only the first ${MAX_RANGE} were kept`);
      }
      // Only a host port written down is published as itself (`"5432"` alone gets a random host port).
      const publishes = hostGiven(entry);
      const side = publishes || hostNet ? { publishes } : { kind: 'container' as const };
      for (const port of ports.slice(0, MAX_RANGE)) rows.push({ port, script_name: name, config_source: file, dir, ...side });
    }
  }
  // Inside the container a process's own port is the host's only on the host network; otherwise it is a
  // container row, a listen row when a `ports:` entry of the repository publishes the same number.
  const inside = (kind: PortKind | undefined): PortKind =>
    (kind === 'connect' ? 'connect' : hostNet ? 'listen' : 'container');
  const env = new Map<string, string>();
  for (const service of [...chain].reverse()) {
    for (const [key, value] of environment(service.environment)) env.set(key, value);
  }
  const pairs = [...env];
  const kinds = envKinds(pairs);
  pairs.forEach(([key, value], k) => {
    const port = valuePort(key, value);
    if (port !== undefined) rows.push({ port, script_name: name, config_source: file, dir, kind: inside(kinds[k]) });
  });
  for (const field of ['command', 'entrypoint']) {
    const line = commandLine(first(field));
    // Only explicit ports: tool defaults come from scripts, Procfiles and Makefiles (see defaults.ts).
    if (line !== undefined) rows.push(...linePorts(ctx, line, name, file, { explicitOnly: true, container: !hostNet }));
  }
  return rows;
}

/** The long syntax's `published`/`target` with the `.env` values: `published: "${WEB_PORT:-8080}"`. */
function interpolateLong(entry: Record<string, unknown>, vars: ReadonlyMap<string, string>): Record<string, unknown> {
  const out = { ...entry };
  for (const key of ['published', 'target']) {
    if (typeof out[key] === 'string') out[key] = interpolate(out[key] as string, vars);
  }
  return out;
}

/**
 * `${VAR}`, `${VAR:-default}`, `${VAR-default}` and `$VAR` with the values of the `.env` beside the compose
 * file (Compose's own interpolation); an unset variable keeps its default, or stays as written.
 */
export function interpolate(text: string, vars: ReadonlyMap<string, string>): string {
  if (!text.includes('$')) return text;
  return text.replace(/\$\{([A-Za-z_]\w*)(?:(:?)[-=]([^}]*))?\}|\$([A-Za-z_]\w*)/g,
    (whole, name: string | undefined, colon: string | undefined, dflt: string | undefined, bare: string | undefined) => {
      const value = vars.get((name ?? bare)!);
      if (value !== undefined && (value !== '' || colon !== ':')) return value;
      return dflt ?? whole;
    });
}

/**
 * Host-side ports of one `ports:` entry. The host side is what a developer opens; with only a container
 * port (`"3000"`, `"127.0.0.1::3000"`, `{ target: 3000 }`) that port is the one to report.
 *
 * @example
 * entryPorts('127.0.0.1:9000-9002:9000-9002/tcp'); // [9000, 9001, 9002]
 */
export function entryPorts(entry: unknown): number[] {
  if (typeof entry === 'number') return toPort(entry) === undefined ? [] : [entry];
  if (isRecord(entry)) {
    const published = entry.published ?? entry.target;
    return typeof published === 'number' || typeof published === 'string' ? range(String(published)) : [];
  }
  if (typeof entry !== 'string') return [];
  let text = shDefaults(entry.trim()).replace(/\/(?:tcp|udp|sctp)$/i, '');
  // An IPv6 host address is bracketed: [::1]:6001:6001.
  if (text.startsWith('[')) text = text.slice(text.indexOf(']') + 1).replace(/^:/, '');
  const parts = text.split(':');
  if (parts.length > 3) return [];
  const container = parts[parts.length - 1]!;
  const host = parts.length >= 2 ? parts[parts.length - 2]! : '';
  return range(host !== '' ? host : container);
}

/** Whether a `ports:` entry names its host port (`"8080:80"`, `{ published: 8080 }`), not only the container's. */
export function hostGiven(entry: unknown): boolean {
  if (isRecord(entry)) return entry.published !== undefined && entry.published !== null && entry.published !== '';
  if (typeof entry !== 'string') return false;
  const text = entry.trim().replace(/^\[[^\]]*\]:?/, '');
  const parts = shDefaults(text).split(':');
  return parts.length >= 2 && parts[parts.length - 2] !== '';
}

/** `"9000-9002"` -> [9000, 9001, 9002]; `"8080"` -> [8080]; junk -> []. */
function range(text: string): number[] {
  const [from, to, extra] = shDefaults(text.trim()).split('-');
  const a = toPort(from);
  if (a === undefined || extra !== undefined) return [];
  if (to === undefined) return [a];
  const b = toPort(to);
  if (b === undefined || b < a) return [];
  return Array.from({ length: b - a + 1 }, (_, k) => a + k);
}

/** `environment` as a list (`- PORT=3000`) or a map (`PORT: 3000`), as name/value pairs. */
function environment(env: unknown): Array<[string, string]> {
  if (Array.isArray(env)) {
    return env.filter((e): e is string => typeof e === 'string' && e.includes('=')).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]);
  }
  if (isRecord(env)) return Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]);
  return [];
}

/** A `command` as one shell line; the exec form's words are re-quoted. */
function commandLine(command: unknown): string | undefined {
  if (typeof command === 'string') return command;
  if (Array.isArray(command)) return command.map((w) => `'${String(w).replace(/'/g, `'\\''`)}'`).join(' ');
  return undefined;
}
