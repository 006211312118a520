/**
 * A Makefile read statically: its rules in file order, each with its prerequisites and recipe lines,
 * with `$(VAR)`/`${VAR}` replaced by the file's own simple definitions (`=`, `?=`, `:=`, `::=`, `!=`)
 * and `$$` by `$`. Nothing is run. Bounded: variables that expand into each other stop at one budget
 * per file (a note says so), and continuation lines are joined without backtracking.
 */
import { MAX_EXPANDED, MAX_EXPANDED_PER_FILE, noteLimit, replaceBounded } from './budget.ts';

/** One rule: its first target, the prerequisites on its line, and its recipe (expanded, one sh line each). */
export interface MakeRule {
  readonly target: string;
  readonly prereqs: readonly string[];
  readonly recipe: string[];
}

const VARIABLE = /^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\?|:|::|!)?=\s*(.*)$/;
const TARGET = /^([A-Za-z0-9_.\/%-]+(?:\s+[A-Za-z0-9_.\/%-]+)*)\s*:(?!=)/;

/**
 * Rules of a Makefile, in order; special targets (`.PHONY`) are left out. `$(MAKE)` reads as `make`.
 *
 * @example
 * readMakefile('T ?= test\ncheck: lint\n\tnode --test $(T)\n');
 * // [{ target: 'check', prereqs: ['lint'], recipe: ['node --test test'] }]
 */
export function readMakefile(text: string): MakeRule[] {
  const vars = new Map<string, string>([['MAKE', 'make']]);
  const out: MakeRule[] = [];
  let rule: MakeRule | null = null;
  // Variables that expand into each other grow exponentially: one budget for the whole file.
  const budget = { left: MAX_EXPANDED_PER_FILE, noted: false };
  const expand = (line: string): string => expandBounded(line, vars, budget);
  for (const raw of joinContinuations(text)) {
    if (raw.startsWith('\t')) {
      const line = raw.trim().replace(/^[@+-]+/, '');
      if (rule !== null && line !== '' && !line.startsWith('#')) rule.recipe.push(expand(line));
      continue;
    }
    const line = raw.replace(/(^|\s)#.*$/, '').trimEnd();
    const variable = VARIABLE.exec(line.replace(/^(export|override)\s+/, ''));
    if (variable) {
      vars.set(variable[1]!, variable[2]!.trim());
      continue;
    }
    const head = TARGET.exec(line);
    if (head) {
      const names = head[1]!.split(/\s+/);
      const rest = line.slice(head[0].length);
      const semi = rest.indexOf(';');
      const prereqs = (semi === -1 ? rest : rest.slice(0, semi)).trim().split(/\s+/)
        .filter((p) => p !== '' && !p.startsWith('|'));
      rule = names[0]!.startsWith('.')
        ? null
        : { target: names[0]!, prereqs: prereqs.map(expand), recipe: [] };
      if (rule) out.push(rule);
      const inline = semi === -1 ? '' : rest.slice(semi + 1).trim();
      if (rule !== null && inline !== '') rule.recipe.push(expand(inline));
    } else if (line !== '') {
      rule = null;
    }
  }
  return out;
}

function expandBounded(
  line: string,
  vars: ReadonlyMap<string, string>,
  budget: { left: number; noted: boolean },
  depth = 0,
): string {
  const replaced = replaceBounded(
    line,
    /\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]/g,
    (m) => vars.get(m[1]!) ?? m[0],
    { budget },
  );
  if (replaced === undefined) {
    if (!budget.noted) {
      noteLimit(`Makefile variables expand past ${MAX_EXPANDED / 1024} KB per line or `
        + `${MAX_EXPANDED_PER_FILE / 1048576} MB per file; the rest was left unexpanded`);
    }
    budget.noted = true;
    budget.left = 0;
    return line.replace(/\$\$/g, '$');
  }
  // `$$PORT` in a recipe is the shell's `$PORT`.
  return depth < 3 && replaced !== line
    ? expandBounded(replaced, vars, budget, depth + 1)
    : replaced.replace(/\$\$/g, '$');
}

/**
 * Lines with backslash continuations joined: blanks around `\` + newline become one space. A loop rather
 * than a RegExp, which would rescan a long run of blanks once per blank; the pieces of a joined line are
 * collected and joined once, since growing one string and looking at its end again is quadratic.
 */
function joinContinuations(text: string): string[] {
  const out: string[] = [];
  let parts: string[] | undefined;
  for (const raw of text.split('\n')) {
    const line = parts ? raw.slice(blanksAt(raw, 0)) : raw;
    const body = line.endsWith('\\\r') ? line.slice(0, -2)
      : line.endsWith('\\') ? line.slice(0, -1)
        : undefined;
    if (body === undefined) {
      if (parts) { parts.push(line); out.push(parts.join(' ')); parts = undefined; } else out.push(line);
      continue;
    }
    let end = body.length;
    while (end > 0 && (body[end - 1] === ' ' || body[end - 1] === '\t')) end--;
    (parts ??= []).push(body.slice(0, end));
  }
  if (parts) out.push(parts.join(' ') + ' ');
  return out;
}

function blanksAt(text: string, from: number): number {
  let i = from;
  while (text[i] === ' ' || text[i] === '\t') i++;
  return i;
}
