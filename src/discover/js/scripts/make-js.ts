/**
 * `node Makefile.js test`: a shelljs/make file, whose targets are functions assigned to `target.NAME`. The
 * target named on the command line is read for the `exec(...)` commands it runs and the other targets it
 * calls (`target.mocha()`), depth- and count-bounded; the command texts are computed by the static
 * evaluator (readers/js) in the file's own scope, so constants, template literals and helper functions
 * (`${getBinFile("c8")} -- ${MOCHA} ${TEST_FILES}`) give the text the target would run. A substitution the
 * evaluator cannot compute is left as a word projdex names in a note.
 */

import { evaluateModule } from '../../../readers/js/modules.ts';
import type { Lit } from '../../../readers/js/literal.ts';

export interface MakeJsCommands { readonly lines: string[]; readonly notes: string[] }

const MAX_TARGETS = 16;
const MAX_EXECS = 32;
const MAX_DEPTH = 4;
/** What stands for a substitution the evaluator could not compute. */
export const UNKNOWN_WORD = '__projdex_computed__';

/** Whether a JS file is a shelljs/make file. */
export function isShelljsMake(text: string): boolean {
  return /require\(\s*["']shelljs\/make["']\s*\)|from\s+["']shelljs\/make["']/.test(text);
}

/**
 * The commands `node FILE target` runs in a shelljs/make file (`file` is its project-relative path).
 *
 * @example
 * const text = 'require("shelljs/make");\nconst M = "mocha ";\ntarget.test = () => { exec(`${M}tests`); };';
 * await makeJsCommands(text, 'Makefile.js', 'test');
 * // { lines: ['mocha tests'], notes: [] }
 */
export async function makeJsCommands(text: string, file: string, goal: string): Promise<MakeJsCommands> {
  const notes: string[] = [];
  const args: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string, depth: number): void => {
    if (seen.has(name) || seen.size >= MAX_TARGETS || depth > MAX_DEPTH) return;
    // A target is a property name; anything else on the command line names none (and never reaches a RegExp).
    if (!/^[A-Za-z_$][\w$]{0,63}$/.test(name)) { notes.push(`${file}: \`${name.slice(0, 40)}\` is not a target name`); return; }
    seen.add(name);
    const body = targetBody(text, name);
    if (body === undefined) { notes.push(`${file} has no target \`${name}\` projdex can read`); return; }
    // Source order: commands and the targets they call, as the body runs them.
    for (const m of body.matchAll(/\btarget\.(\w+)\s*\(|(?<![.\w])exec\s*\(/g)) {
      if (m[1] !== undefined) { visit(m[1], depth + 1); continue; }
      const arg = firstArgument(body, m.index + m[0].length);
      if (arg !== undefined && args.length < MAX_EXECS) args.push(arg);
    }
  };
  visit(goal, 0);
  if (args.length === 0) return { lines: [], notes };
  // Each command is evaluated as its parts: literal text, and each `${...}` on its own, so one
  // substitution the evaluator cannot compute does not hide the rest.
  const parts = args.map(templateParts);
  const exprs = parts.flatMap((p) => p.filter((x) => x.expr !== undefined).map((x) => x.expr!));
  const src = `${text}\n;module.exports = [${exprs.map((e) => `(${e})`).join(', ')}];\n`;
  const result = await evaluateModule(src, { file: `/${file}`, cwd: '/', read: async () => undefined });
  const values = Array.isArray(result.value) ? result.value : [];
  let k = 0;
  const lines = parts.map((p) => p.map((x) => {
    if (x.expr === undefined) return x.text;
    const v: Lit | undefined = values[k++];
    if (typeof v === 'string' || typeof v === 'number') return String(v);
    const note = `${file}: \`${x.expr}\` is computed; read as one unknown word`;
    if (!notes.includes(note)) notes.push(note);
    return UNKNOWN_WORD;
  }).join(''));
  return { lines, notes };
}

/** The text of `target.NAME = function () {...}` / `= () => {...}`'s body, or undefined. */
function targetBody(text: string, name: string): string | undefined {
  const re = new RegExp(`\\btarget\\.${name}\\s*=\\s*(?:async\\s+)?(?:function\\b[^{]*|\\([^)]*\\)\\s*=>\\s*|\\w+\\s*=>\\s*)\\{`, 'g');
  const m = re.exec(text);
  if (!m) return undefined;
  const end = closing(text, m.index + m[0].length - 1, '{', '}');
  return end === -1 ? undefined : text.slice(m.index + m[0].length, end);
}

/** The first argument's source text of a call whose `(` ends at `from`. */
function firstArgument(text: string, from: number): string | undefined {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') { i = skipString(text, i); continue; }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') { if (depth === 0) return text.slice(from, i).trim(); depth--; }
    else if (c === ',' && depth === 0) return text.slice(from, i).trim();
  }
  return undefined;
}

/** A command argument as literal text and `${...}` expressions (a plain string literal is one text). */
function templateParts(arg: string): Array<{ text: string; expr?: string }> {
  const quoted = /^(["'])((?:\\.|(?!\1).)*)\1$/s.exec(arg);
  if (quoted) return [{ text: quoted[2]!.replace(/\\(.)/g, '$1') }];
  if (!arg.startsWith('`') || !arg.endsWith('`')) return [{ text: '', expr: arg }];
  const out: Array<{ text: string; expr?: string }> = [];
  const body = arg.slice(1, -1);
  let at = 0;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\\') { i++; continue; }
    if (body[i] === '$' && body[i + 1] === '{') {
      const end = closing(body, i + 1, '{', '}');
      if (end === -1) break;
      out.push({ text: body.slice(at, i) }, { text: '', expr: body.slice(i + 2, end) });
      i = end;
      at = end + 1;
    }
  }
  out.push({ text: body.slice(at) });
  return out;
}

function closing(text: string, open: number, o: string, c: string): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"' || ch === "'" || ch === '`') { i = skipString(text, i); continue; }
    if (ch === '/' && text[i + 1] === '/') { const nl = text.indexOf('\n', i); i = nl === -1 ? text.length : nl; continue; }
    if (ch === '/' && text[i + 1] === '*') { const e = text.indexOf('*/', i + 2); i = e === -1 ? text.length : e + 1; continue; }
    if (ch === o) depth++;
    else if (ch === c && --depth === 0) return i;
  }
  return -1;
}

function skipString(text: string, at: number): number {
  const q = text[at]!;
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === '\\') { i++; continue; }
    if (q === '`' && text[i] === '$' && text[i + 1] === '{') {
      i = closing(text, i + 1, '{', '}');
      if (i === -1) return text.length;
      continue;
    }
    if (text[i] === q) return i;
  }
  return text.length;
}
