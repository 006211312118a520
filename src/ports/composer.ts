import type { ScanContext } from '../rules/types.ts';
import { isRecord, pick, type PortRow } from './common.ts';
import { linePorts, scriptsBeside } from './scripts.ts';

/**
 * Ports of composer.json `scripts` (Laravel's `"dev": ["...", "npx concurrently \"php artisan serve\" ..."]`),
 * attributed to the script. An entry is a string or a list run in order; `@php`/`@composer` are the
 * binaries, `@other` calls another script (followed), PHP callbacks (`Foo\\Bar::baz`) and `@putenv` are
 * skipped. `npm run dev` inside one reads the package.json of the same directory.
 */
export async function findComposerPorts(ctx: ScanContext): Promise<PortRow[]> {
  const files = pick(ctx, (base) => base === 'composer.json');
  const perFile = await Promise.all(files.map(async (file) => {
    const composer = composerScripts(await ctx.readJson(file));
    if (composer.size === 0) return [];
    const beside = await scriptsBeside(ctx, file);
    const rows: PortRow[] = [];
    for (const [name, line] of composer) {
      rows.push(...linePorts(ctx, line, name, file, { ...beside, composer, self: `composer:${name}` }));
    }
    return rows;
  }));
  return perFile.flat();
}

/** composer.json scripts as shell lines: list entries joined with `;`, composer's `@` forms rewritten. */
export function composerScripts(json: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!isRecord(json) || !isRecord(json.scripts)) return out;
  for (const [name, value] of Object.entries(json.scripts)) {
    const list: unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
    const entries = list.filter((v): v is string => typeof v === 'string');
    const lines = entries.map(composerLine).filter((l) => l !== '');
    if (lines.length > 0) out.set(name, lines.join(' ; '));
  }
  return out;
}

function composerLine(entry: string): string {
  const text = entry.trim();
  if (/^[\w\\]+::\w+$/.test(text) || text.startsWith('@putenv')) return '';
  if (text.startsWith('@php ') || text.startsWith('@composer ')) return text.slice(1);
  if (text.startsWith('@')) return `composer run ${text.slice(1)}`;
  return text;
}
