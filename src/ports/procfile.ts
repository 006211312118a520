import type { ScanContext } from '../rules/types.ts';
import { pick, type PortRow } from './common.ts';
import { linePorts, scriptsBeside } from './scripts.ts';

/** `web: gunicorn app:app --bind 0.0.0.0:$PORT`: a process name, a colon, a command. */
const PROCESS = /^([A-Za-z0-9_-]+)\s*:\s*(.+)$/;

/** Ports of `Procfile` and `Procfile.*` (foreman's Procfile.dev) process lines, attributed to the process name. */
export async function findProcfilePorts(ctx: ScanContext): Promise<PortRow[]> {
  const files = pick(ctx, (base) => base === 'Procfile' || base.startsWith('Procfile.'));
  const perFile = await Promise.all(files.map(async (file) => {
    const text = await ctx.read(file);
    if (text === undefined) return [];
    // `web: npm start` runs the package.json script beside the Procfile.
    const options = await scriptsBeside(ctx, file);
    return parseProcfile(text).flatMap(([name, command]) => linePorts(ctx, command, name, file, options));
  }));
  return perFile.flat();
}

/** `[name, command]` pairs of a Procfile, comments and blank lines skipped. */
export function parseProcfile(text: string): Array<[name: string, command: string]> {
  const out: Array<[string, string]> = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = PROCESS.exec(line);
    if (m) out.push([m[1]!, m[2]!]);
  }
  return out;
}
