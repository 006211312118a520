import type { ScanContext } from '../rules/types.ts';
import { MAX_EXPANDED, noteLimit, replaceBounded } from '../readers/budget.ts';
import { rowsOfFiles, toPort, type PortRow } from './common.ts';
import { linePorts } from './scripts.ts';
import { dirname } from '../rules/paths.ts';

/** Dockerfile, Containerfile, Dockerfile.dev, api.Dockerfile, web.dockerfile. */
export function isDockerfile(base: string): boolean {
  return base === 'Dockerfile' || base === 'Containerfile' || base.startsWith('Dockerfile.') || /\.[Dd]ockerfile$/.test(base);
}

/**
 * Ports of Dockerfiles: `EXPOSE 80 443/tcp` (with `$VAR`/`${VAR}` resolved from the file's own `ARG`
 * and `ENV` defaults) and explicit ports in `CMD`/`ENTRYPOINT` (`uvicorn ... --port 8000`), as `container`
 * rows (kind.ts).
 */
export async function findDockerfilePorts(ctx: ScanContext): Promise<PortRow[]> {
  return rowsOfFiles(ctx, isDockerfile, (text, file) => {
    const dir = dirname(file);
    const { exposed, commands } = parseDockerfile(text);
    // Both are ports inside the container: the host listens only where a compose file or `docker run -p`
    // publishes them (defaults.ts turns a row published by the repository's compose files into a listen row).
    const rows: PortRow[] = exposed.map((port) => ({ port, script_name: null, config_source: file, dir, kind: 'container' }));
    for (const line of commands) rows.push(...linePorts(ctx, line, null, file, { explicitOnly: true, container: true }));
    return rows;
  });
}

/** The EXPOSEd ports (ranges expanded up to 100) and the CMD/ENTRYPOINT lines of a Dockerfile. */
export function parseDockerfile(text: string): { exposed: number[]; commands: string[] } {
  const vars = new Map<string, string>();
  const exposed: number[] = [];
  const commands: string[] = [];
  const lines = text.replace(/\\\r?\n/g, ' ').split('\n');
  for (const raw of lines) {
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(raw);
    if (!m) continue;
    const instruction = m[1]!.toUpperCase();
    const args = m[2]!.trim();
    if (instruction === 'ARG' || instruction === 'ENV') {
      // `ENV PORT=3000 HOST=0.0.0.0`, `ENV PORT 3000`, `ARG PORT=3000`.
      const pairs = [...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\S*)/g)];
      if (pairs.length > 0) for (const p of pairs) vars.set(p[1]!, p[2]!.replace(/^["']|["']$/g, ''));
      else if (instruction === 'ENV') { const [k, ...v] = args.split(/\s+/); if (k) vars.set(k, v.join(' ')); }
    } else if (instruction === 'EXPOSE') {
      for (const word of expand(args, vars).split(/\s+/)) {
        const [from, to] = word.replace(/\/\w+$/, '').split('-');
        const a = toPort(from);
        const b = to === undefined ? a : toPort(to);
        if (a !== undefined && b !== undefined) for (let p = a; p <= Math.min(b, a + 99); p++) exposed.push(p);
      }
    } else if (instruction === 'CMD' || instruction === 'ENTRYPOINT') {
      commands.push(execForm(expand(args, vars)));
    }
  }
  return { exposed, commands };
}

function expand(text: string, vars: ReadonlyMap<string, string>): string {
  const out = replaceBounded(text, /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-+]([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    ([whole, a, dflt, b]) => vars.get((a ?? b)!) ?? dflt ?? whole);
  if (out !== undefined) return out;
  noteLimit(`Dockerfile variables expand past ${MAX_EXPANDED / 1024} KB in one line; it was left unexpanded`);
  return text;
}

/** `["uvicorn", "app:app", "--port", "8000"]` -> a shell line; shell form is returned as is. */
function execForm(args: string): string {
  if (!args.startsWith('[')) return args;
  try {
    const words: unknown = JSON.parse(args);
    if (Array.isArray(words)) return words.map((w) => `'${String(w).replace(/'/g, `'\\''`)}'`).join(' ');
  } catch {
    // Not valid JSON: Docker runs it in shell form too.
  }
  return args;
}
