import type { ScanContext } from '../rules/types.ts';
import { isRecord, pick, shDefaults, toPort, type PortRow } from './common.ts';
import { parseDotenv, valuePort } from './dotenv.ts';
import { linePorts } from './scripts.ts';
import { parseYaml } from '../readers/yaml.ts';
import { dirname, joinPath } from '../rules/paths.ts';
import { envKinds, type PortKind } from './kind.ts';

/** compose.yaml, docker-compose.yml and overrides such as docker-compose.dev.yml or compose.override.yaml. */
const COMPOSE_FILE = /^(?:docker-)?compose(?:\.[\w.-]+)?\.ya?ml$/;
/** Ranges larger than this are cut short (with a note): nobody means 60 000 rows. */
const MAX_RANGE = 100;

/**
 * Ports of compose services, attributed to the service: `ports:` in short syntax (`"8080:80"`, `"3000"`,
 * `"127.0.0.1:8080:80/udp"`, ranges) and long syntax (`published`, else `target`): the host side, the port
 * a developer opens, `listen` and marked as published; a container port alone (`"3000"`, `{ target: 3000 }`)
 * gets a random host port, so it is a `container` row. `PORT`/`*_PORT` and URLs in `environment`, and ports in
 * `command`/`entrypoint`, are bound inside the container: `container` rows (a client setting stays `connect`),
 * `listen` under `network_mode: host`.
 */
export async function findComposePorts(ctx: ScanContext): Promise<PortRow[]> {
  const files = pick(ctx, (base) => COMPOSE_FILE.test(base));
  const perFile = await Promise.all(files.map(async (file) => {
    const text = await ctx.read(file);
    if (text === undefined) return [];
    // Compose interpolates `${VAR}` from the `.env` beside the file: `"${MONGO_PORT}:27017"` with MONGO_PORT=27018.
    const envFile = joinPath(dirname(file), '.env');
    const envText = ctx.has(envFile) ? await ctx.read(envFile) : undefined;
    return composeRows(ctx, text, file, new Map(envText === undefined ? [] : parseDotenv(envText)));
  }));
  return perFile.flat();
}

function composeRows(ctx: ScanContext, text: string, file: string, vars: ReadonlyMap<string, string>): PortRow[] {
  const doc = parseYaml(text);
  const services = isRecord(doc) && isRecord(doc.services) ? doc.services : undefined;
  if (!services) return [];
  const dir = dirname(file);
  const rows: PortRow[] = [];
  for (const [name, service] of Object.entries(services)) {
    if (!isRecord(service)) continue;
    const hostNet = service.network_mode === 'host';
    if (Array.isArray(service.ports)) {
      for (const raw of service.ports) {
        const entry = typeof raw === 'string' ? interpolate(raw, vars) : raw;
        const ports = entryPorts(entry);
        if (ports.length > MAX_RANGE) ctx.note(`Port range of service "${name}" in ${file} has ${ports.length} ports; only the first ${MAX_RANGE} were kept`);
        // Only a host port written down is published as itself (`"5432"` alone gets a random host port).
        const publishes = hostGiven(entry);
        for (const port of ports.slice(0, MAX_RANGE)) {
          rows.push({ port, script_name: name, config_source: file, dir, ...(publishes || hostNet ? { publishes } : { kind: 'container' }) });
        }
      }
    }
    // Inside the container a process's own port is the host's only on the host network; otherwise it is a
    // container row, a listen row when a `ports:` entry of the repository publishes the same number.
    const inside = (kind: PortKind | undefined): PortKind => (kind === 'connect' ? 'connect' : hostNet ? 'listen' : 'container');
    const env = environment(service.environment);
    const kinds = envKinds(env);
    env.forEach(([key, value], k) => {
      const port = valuePort(key, value);
      if (port !== undefined) rows.push({ port, script_name: name, config_source: file, dir, kind: inside(kinds[k]) });
    });
    for (const field of ['command', 'entrypoint']) {
      const line = commandLine(service[field]);
      // Only explicit ports: tool defaults come from scripts, Procfiles and Makefiles (see defaults.ts).
      if (line !== undefined) rows.push(...linePorts(ctx, line, name, file, { explicitOnly: true, container: !hostNet }));
    }
  }
  return rows;
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
