import type { ScanContext } from '../scan/types.ts';
import { portsInCommand } from './command.ts';
import { isRecord, pick, type PortRow } from './common.ts';
import { defaultRow } from './defaults.ts';
import { dirname } from '../scan/paths.ts';

/**
 * Ports named by `scripts` of every package.json in the tree (monorepo packages included): port flags,
 * `PORT=` assignments and, for serving commands with no port, the tool's default (see defaults.ts). A
 * script that calls another of the package (`npm run dev`, `pnpm with-env next dev`) is read through it.
 */
export async function findScriptPorts(ctx: ScanContext): Promise<PortRow[]> {
  const files = pick(ctx, (base) => base === 'package.json');
  const perFile = await Promise.all(files.map(async (file) => {
    const pkg = await ctx.readJson(file);
    const scripts = isRecord(pkg) && isRecord(pkg.scripts) ? pkg.scripts : undefined;
    if (!scripts) return [];
    const texts = new Map<string, string>();
    for (const [name, line] of Object.entries(scripts)) if (typeof line === 'string') texts.set(name, line);
    const rows: PortRow[] = [];
    for (const [name, line] of texts) rows.push(...linePorts(ctx, line, name, file, texts));
    return rows;
  }));
  return perFile.flat();
}

/** Rows for one command line (a script, a Procfile process, a Makefile recipe) attributed to `name` in `file`. */
export function linePorts(
  ctx: ScanContext, line: string, name: string | null, file: string, scripts?: ReadonlyMap<string, string>,
): PortRow[] {
  // `name` is on the follow stack from the start, so a script calling itself is read once.
  const found = portsInCommand(line, scripts ? { scripts } : {}, scripts && name !== null ? name : undefined);
  const dir = dirname(file);
  const rows: PortRow[] = found.ports.map((port) => ({ port, script_name: name, config_source: file, dir }));
  for (const port of found.connect) rows.push({ port, script_name: name, config_source: file, dir, kind: 'connect' });
  for (const d of found.defaults) rows.push(defaultRow(d, name, dir));
  for (const value of found.unresolved) ctx.note(`Port ${value} in ${name === null ? '' : `"${name}" of `}${file} comes from a variable; it was not counted`);
  return rows;
}
