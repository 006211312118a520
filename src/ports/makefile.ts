import type { ScanContext } from '../scan/types.ts';
import { MAX_EXPANDED, MAX_EXPANDED_PER_FILE, noteLimit, replaceBounded } from '../readers/budget.ts';
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
  const lines = joinContinuations(text);
  // Variables that expand into each other grow exponentially: one budget for the whole file.
  const budget = { left: MAX_EXPANDED_PER_FILE, noted: false };
  const expand = (line: string): string => expandBounded(line, vars, budget);
  for (const raw of lines) {
    if (raw.startsWith('\t')) {
      const line = raw.trim().replace(/^[@+-]+/, '');
      if (target !== null && line !== '' && !line.startsWith('#')) out.push([target, expand(line)]);
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
      if (target !== null && inline !== undefined && inline.trim() !== '') out.push([target, expand(inline.trim())]);
    } else if (line !== '') {
      target = null;
    }
  }
  return out;
}

function expandBounded(line: string, vars: ReadonlyMap<string, string>, budget: { left: number; noted: boolean }, depth = 0): string {
  const replaced = replaceBounded(line, /\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]/g, (m) => vars.get(m[1]!) ?? m[0], { budget });
  if (replaced === undefined) {
    if (!budget.noted) noteLimit(`Makefile variables expand past ${MAX_EXPANDED / 1024} KB per line or ${MAX_EXPANDED_PER_FILE / 1048576} MB per file; the rest was left unexpanded`);
    budget.noted = true;
    budget.left = 0;
    return line.replace(/\$\$/g, '$');
  }
  // `$$PORT` in a recipe is the shell's `$PORT`.
  return depth < 3 && replaced !== line ? expandBounded(replaced, vars, budget, depth + 1) : replaced.replace(/\$\$/g, '$');
}

/**
 * Lines with backslash continuations joined: blanks around `\` + newline become one space. A loop rather
 * than a RegExp, which would rescan a long run of blanks once per blank.
 */
function joinContinuations(text: string): string[] {
  const out: string[] = [];
  let pending: string | undefined;
  for (let line of text.split('\n')) {
    if (pending !== undefined) line = pending + ' ' + line.slice(blanksAt(line, 0));
    const body = line.endsWith('\\\r') ? line.slice(0, -2) : line.endsWith('\\') ? line.slice(0, -1) : undefined;
    if (body === undefined) { out.push(line); pending = undefined; continue; }
    let end = body.length;
    while (end > 0 && (body[end - 1] === ' ' || body[end - 1] === '\t')) end--;
    pending = body.slice(0, end);
  }
  if (pending !== undefined) out.push(pending + ' ');
  return out;
}

function blanksAt(text: string, from: number): number {
  let i = from;
  while (text[i] === ' ' || text[i] === '\t') i++;
  return i;
}
