import { allInOrder } from '../rules/part-log.ts';
import type { ScanContext } from '../rules/types.ts';
import { portsInCommand, type CommandOptions } from './command.ts';
import { addressPort, isRecord, NO_MEMBERS, pick, type PortRow } from './common.ts';
import { defaultRow } from './defaults.ts';
import { dirname, joinPath } from '../rules/paths.ts';
import { noteEntry, withEntries, type Found } from './entry.ts';

/**
 * Ports named by `scripts` of every package.json in the tree (monorepo packages included): port flags,
 * `PORT=` assignments and, for serving commands with no port, the tool's default (see defaults.ts). A
 * script that calls another of the package (`npm run dev`, `pnpm with-env next dev`) is read through it.
 * Each package.json is a unit of its own (a monorepo names hundreds; an edit of one reads that one again),
 * which sees nothing of the tree but its file; notes reach `ctx` in the files' order, whichever came first.
 */
export async function findScriptPorts(ctx: ScanContext): Promise<Found> {
  const files = pick(ctx, (base) => base === 'package.json');
  const perFile = await allInOrder(ctx, files, (own, file) =>
    own.unit(`ports\0scripts\0${file}`, (view) => withEntries(view, (seen) => manifestPorts(seen, file)),
      { members: NO_MEMBERS }));
  return { rows: perFile.flatMap((found) => found.rows), entries: perFile.flatMap((found) => found.entries) };
}

/** The rows of one package.json's scripts and `proxy`; its `main` and the files its scripts run are noted. */
async function manifestPorts(ctx: ScanContext, file: string): Promise<PortRow[]> {
  const pkg = await ctx.readJson(file);
  const texts = packageScripts(pkg);
  const main = isRecord(pkg) && typeof pkg.main === 'string' ? pkg.main : undefined;
  if (main !== undefined) noteEntry(ctx, { path: main, dir: dirname(file), script: null });
  const rows: PortRow[] = proxyRows(pkg, file);
  // The script itself is on the follow stack from the start, so a script calling itself is read once.
  for (const [name, line] of texts) {
    rows.push(...linePorts(ctx, line, name, file, { scripts: texts, self: name, ...(main ? { main } : {}) }));
  }
  return rows;
}

/**
 * Create React App's `proxy` (`"http://localhost:5000"`): the dev server forwards unknown requests to a
 * backend on that port. The backend is another process (usually a sibling package, with its own listen
 * row), so this package only connects to it.
 */
function proxyRows(pkg: unknown, file: string): PortRow[] {
  const port = isRecord(pkg) && typeof pkg.proxy === 'string' ? addressPort(pkg.proxy.replace(/\/+$/, '')) : undefined;
  return port === undefined ? [] : [{ port, script_name: null, config_source: file, dir: dirname(file), kind: 'connect' }];
}

/** The string-valued `scripts` of a parsed package.json, by name. */
export function packageScripts(pkg: unknown): Map<string, string> {
  const texts = new Map<string, string>();
  if (!isRecord(pkg) || !isRecord(pkg.scripts)) return texts;
  for (const [name, line] of Object.entries(pkg.scripts)) if (typeof line === 'string') texts.set(name, line);
  return texts;
}

/**
 * The package.json scripts beside `file` (a Procfile, Makefile or composer.json), so `web: npm start` or
 * `dev: ; yarn dev` is read through the script it calls; empty when there is no package.json there.
 */
export async function scriptsBeside(ctx: ScanContext, file: string): Promise<CommandOptions> {
  const pkg = joinPath(dirname(file), 'package.json');
  return ctx.has(pkg) ? { scripts: packageScripts(await ctx.readJson(pkg)) } : {};
}

/** Rows for one command line (a script, a Procfile process, a Makefile recipe) attributed to `name` in `file`. */
export function linePorts(ctx: ScanContext, line: string, name: string | null, file: string, options: CommandOptions = {}): PortRow[] {
  const found = portsInCommand(line, options);
  const dir = dirname(file);
  // `node .` runs the package's main.
  for (const path of found.entries) {
    const entry = path === '.' || path === './' ? options.main ?? 'index.js' : path;
    noteEntry(ctx, {
      path: entry, dir, script: name, ...(options.explicitOnly ? { explicitOnly: true } : {}), ...(options.container ? { container: true } : {}),
    });
  }
  const own = options.container ? { kind: 'container' as const } : {};
  const rows: PortRow[] = found.ports.map((port) => ({ port, script_name: name, config_source: file, dir, ...own }));
  for (const port of found.connect) rows.push({ port, script_name: name, config_source: file, dir, kind: 'connect' });
  if (!options.explicitOnly) for (const d of found.defaults) rows.push(defaultRow(d, name, dir));
  for (const value of found.unresolved) ctx.note(`Port ${value} in ${name === null ? '' : `"${name}" of `}${file} comes from a variable; it was not counted`);
  return rows;
}
