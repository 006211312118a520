import type { ScanContext } from '../scan/types.ts';
import { pick, type PortRow } from './common.ts';
import { linePorts, scriptsBeside } from './scripts.ts';

const VARIABLE = /^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\?|:|::|!)?=\s*(.*)$/;
const TARGET = /^([A-Za-z0-9_.\/%-]+(?:\s+[A-Za-z0-9_.\/%-]+)*)\s*:(?!=)/;

/**
 * Ports in Makefile recipes (`run: ; python manage.py runserver 0.0.0.0:$(PORT)`), attributed to the
 * target. Simple variable definitions in the same file are substituted, so `PORT ?= 8000` resolves.
 */
export async function findMakefilePorts(ctx: ScanContext): Promise<PortRow[]> {
  const files = pick(ctx, (base) => base === 'Makefile' || base === 'makefile' || base === 'GNUmakefile');
  const perFile = await Promise.all(files.map(async (file) => {
    const text = await ctx.read(file);
    if (text === undefined) return [];
    // `dev: ; npm run dev` runs the package.json script beside the Makefile.
    const options = await scriptsBeside(ctx, file);
    return parseMakefile(text).flatMap(([target, command]) => linePorts(ctx, command, target, file, options));
  }));
  return perFile.flat();
}

/** `[target, recipe line]` pairs with `$(VAR)`/`${VAR}` replaced by the file's own simple definitions. */
export function parseMakefile(text: string): Array<[target: string, command: string]> {
  const vars = new Map<string, string>();
  const out: Array<[string, string]> = [];
  let target: string | null = null;
  const lines = text.replace(/[ \t]*\\\r?\n[ \t]*/g, ' ').split('\n');
  for (const raw of lines) {
    if (raw.startsWith('\t')) {
      const line = raw.trim().replace(/^[@+-]+/, '');
      if (target !== null && line !== '' && !line.startsWith('#')) out.push([target, expand(line, vars)]);
      continue;
    }
    const line = raw.replace(/(^|\s)#.*$/, '').trimEnd();
    const variable = VARIABLE.exec(line.replace(/^(export|override)\s+/, ''));
    if (variable) {
      vars.set(variable[1]!, variable[2]!.trim());
      continue;
    }
    const rule = TARGET.exec(line);
    if (rule) {
      const names = rule[1]!.split(/\s+/);
      target = names[0]!.startsWith('.') ? null : names[0]!;
      const rest = line.slice(rule[0].length);
      const inline = rest.includes(';') ? rest.slice(rest.indexOf(';') + 1) : undefined;
      if (target !== null && inline !== undefined && inline.trim() !== '') out.push([target, expand(inline.trim(), vars)]);
    } else if (line !== '') {
      target = null;
    }
  }
  return out;
}

function expand(line: string, vars: ReadonlyMap<string, string>, depth = 0): string {
  const replaced = line.replace(/\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]/g, (whole, name: string) => vars.get(name) ?? whole);
  // `$$PORT` in a recipe is the shell's `$PORT`.
  return depth < 3 && replaced !== line ? expand(replaced, vars, depth + 1) : replaced.replace(/\$\$/g, '$');
}
