import type { FoundPort, ScanContext, UnitMembers } from '../rules/types.ts';
import type { PortKind } from './kind.ts';

/**
 * A port row as the finders produce it. `suppress`/`dir` let index.ts drop a tool default when the
 * tool's own config (in the same package directory) names the port; both are stripped before return.
 */
export interface PortRow extends FoundPort {
  /** Directory of the package the row belongs to ('' for the root). */
  readonly dir?: string;
  /** Default rows: the `tool:mode` key they stand for (e.g. `vite:dev`). */
  readonly key?: string;
  /** Config rows: the `tool:mode` default keys this explicit port replaces. */
  readonly suppress?: readonly string[];
  /** Listen (the default when absent), connect or container; see kind.ts. */
  readonly kind?: PortKind;
  /** Compose `ports:` rows: the repository publishes this host port, so a connect or container row of it is a listen row. */
  readonly publishes?: boolean;
}

/** A port row as findPorts returns it: FoundPort plus its kind. */
export interface KindedPort extends FoundPort {
  readonly kind: PortKind;
}

/** A finder over one family of files; same shape as FindPorts, with the internal row type. */
export type Finder = (ctx: ScanContext) => Promise<PortRow[]>;

/**
 * The `members` of a unit that sees the tree only through its view and asks nothing of a package's files or
 * directories (one package.json's scripts, the entry files named): its record holds on another walk too.
 */
export const NO_MEMBERS: UnitMembers = { files: () => [], dirs: () => [] };

// Perf: a dozen finders each pass over the walked files; the shared basename index means no path is
// sliced again, and `name` runs once per distinct basename, not once per file (100k-file tree: 3.8k names
// for 64k files); `path` only for files whose name passed (rows come out grouped by name; scan() sorts them).
/** A vendored dependency (Go modules, Composer, Bundler): its files name its own dev servers, never the project's. */
const VENDORED = /(?:^|\/)vendor\//;

/**
 * Files of the walk whose basename passes `name` (and whose path passes `path`), from the basename index;
 * files under a `vendor/` folder are left out.
 */
export function pick(ctx: ScanContext, name: (base: string) => boolean, path?: (path: string, base: string) => boolean): string[] {
  const names = ctx.names();
  const out: string[] = [];
  for (const base of basenames(ctx, names)) {
    if (!name(base)) continue;
    for (const file of names.get(base)!) {
      if (!VENDORED.test(file) && (!path || path(file, base))) out.push(file);
    }
  }
  return out;
}

type NameIndex = ReadonlyMap<string, readonly string[]>;

/**
 * The basename index's keys as one array, made once per walk. Perf: two dozen picks each pass over every
 * distinct basename (3.8k on the 100k-file tree) and take few; iterating the Map's entries made a pair per
 * name per pick (findPorts on that tree: ~16 -> ~13 ms of CPU without them).
 */
function basenames(ctx: ScanContext, names: NameIndex): readonly string[] {
  const known = ctx.perWalk('ports:basenames', (): { of?: NameIndex; list: string[] } => ({ list: [] }));
  if (known.of !== names) { known.of = names; known.list = [...names.keys()]; }
  return known.list;
}

/**
 * Rows from every walked file whose basename passes `name` (and path `path`): each is read (in parallel) and handed to
 * `rows`; a file that cannot be read gives none.
 *
 * @example
 * await rowsOfFiles(ctx, (base) => base === 'Procfile', (text, file) => [{ port: 5000, script_name: 'web', config_source: file }]);
 */
export async function rowsOfFiles(
  ctx: ScanContext, name: (base: string) => boolean, rows: (text: string, file: string) => PortRow[],
  path?: (path: string, base: string) => boolean,
): Promise<PortRow[]> {
  const perFile = await Promise.all(pick(ctx, name, path).map(async (file) => {
    const text = await ctx.read(file);
    if (text !== undefined) return rows(text, file);
    // Listed by the walk but not readable (over 1 MiB, replaced, no permission): its ports are not lost silently.
    ctx.note(`${file} could not be read (larger than 1 MiB, no longer a plain file, or not permitted): its ports are not listed`);
    return [];
  }));
  return perFile.flat();
}

const DIGITS = /^\d{1,5}$/;

/** A port number from a literal (`3000`, `"3000"`), or undefined when not an integer in 1..65535. */
export function toPort(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 1 && value <= 65535 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (!DIGITS.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && n <= 65535 ? n : undefined;
}

// `${PORT:-3000}`, `${PORT-3000}`, `${PORT:=3000}`, `${PORT=3000}`: sh's default-value expansions.
const SH_DEFAULT = /\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=]([^}]*)\}/g;

/** Replaces sh default-value expansions by their literal default: `0.0.0.0:${PORT:-8000}` -> `0.0.0.0:8000`. */
export function shDefaults(text: string): string {
  return text.includes('${') ? text.replace(SH_DEFAULT, '$1') : text;
}

/** True when the text still names a variable (`$PORT`, `${PORT}`, `%PORT%`), i.e. its value is unknown statically. */
export function isVariable(text: string): boolean {
  return /\$[A-Za-z_{(]|%[A-Za-z_]+%/.test(text);
}

/**
 * Port of an address-like value: `8000`, `0.0.0.0:8000`, `[::1]:8000`, `tcp://0.0.0.0:9292`,
 * `http://localhost:3000/x`. `unix:/tmp/app.sock` and the like give undefined.
 */
export function addressPort(value: string): number | undefined {
  const text = shDefaults(value.trim());
  const direct = toPort(text);
  if (direct !== undefined) return direct;
  const m = /:(\d{1,5})(?:\/.*)?$/.exec(text);
  return m ? toPort(m[1]) : undefined;
}

/** A plain object (not null, not an array), as parsed YAML/JSON maps are. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
