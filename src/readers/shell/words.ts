/**
 * Helpers of the shell program reader (shell-program.ts): splitting a script into words and operators
 * (quoting by shell.ts), deciding `test`/`[ ]` conditions, `case` patterns and `cd` targets.
 */

import { parseShell } from './parse.ts';
import { notePattern, projectRegExp } from '../safe-regex.ts';

/**
 * A word (quotes removed) or an operator (`op` set). `dollars`: offsets of the `$` that `sh` expands
 * (absent: every `$`); a single-quoted `'$HOME'` has none.
 */
export interface Word {
  readonly text: string;
  readonly quoted: boolean;
  readonly op?: string;
  readonly dollars?: readonly number[];
}

const OPS = ['&&', '||', ';;', ';', '|', '&', '\n', '(', ')'];

/**
 * `[ -n X ]`, `[ -z X ]`, `[ A = B ]`, `[ A != B ]`, `! ...`, `true`/`false`; undefined when not
 * decidable.
 */
export function decide(
  parts: Word[],
  fileTest?: (op: string, path: string) => boolean | undefined,
): boolean | undefined {
  let words = parts.map((p) => p.text);
  let negate = false;
  if (words[0] === '!') { negate = true; words = words.slice(1); }
  if (words[0] === '[' || words[0] === '[[') words = words.slice(1, -1);
  else if (words[0] === 'test') words = words.slice(1);
  else if (words.length === 1 && (words[0] === 'true' || words[0] === 'false')) {
    return (words[0] === 'true') !== negate;
  }
  else return undefined;
  let r: boolean | undefined;
  if (words.length === 2 && words[0] === '-n') r = words[1] !== '';
  else if (words.length === 2 && words[0] === '-z') r = words[1] === '';
  else if (words.length === 1) r = words[0] !== '';
  else if (words.length === 0) r = false;
  else if (words.length === 3 && (words[1] === '=' || words[1] === '==')) r = words[0] === words[2];
  else if (words.length === 3 && words[1] === '!=') r = words[0] !== words[2];
  else if (words.length === 2 && /^-[fde]$/.test(words[0]!)) r = fileTest?.(words[0]!, words[1]!);
  return r === undefined ? undefined : r !== negate;
}

/** `cd` relative to `from` (`..` pops; an absolute or `~` target is kept as written). */
export function joinDir(from: string, to: string): string {
  if (to.startsWith('/') || to.startsWith('~')) return to;
  const out = from === '' ? [] : from.split('/');
  for (const seg of to.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else out.push('..');
    } else out.push(seg);
  }
  return out.join('/');
}

export function globMatch(pattern: string, text: string): boolean {
  const re = '^' + pattern.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$';
  const refused = (why: string): void =>
    notePattern(`shell pattern ${JSON.stringify(pattern.slice(0, 80))} is not used: ${why}`);
  return projectRegExp(re, '', refused)?.test(text) ?? false;
}

/** Words and operators of a script (quotes removed, `$` left for expansion); null past `maxWords`. */
export function split(script: string, maxWords: number): Word[] | null {
  const out: Word[] = [];
  // parseShell does the quoting; operators are found between its commands by re-scanning the text.
  for (const piece of tokenizeOps(script)) {
    if (typeof piece !== 'string') { out.push({ text: piece.op, quoted: false, op: piece.op }); continue; }
    for (const cmd of parseShell(piece)) {
      cmd.env.forEach(([k, v], i) => out.push({
        text: `${k}=${v}`,
        quoted: false,
        dollars: cmd.envDollars[i]!.map((d) => d + k.length + 1),
      }));
      cmd.argv.forEach((a, i) => out.push({ text: a, quoted: cmd.quoted[i]!, dollars: cmd.dollars[i]! }));
    }
    if (out.length > maxWords) return null;
  }
  return out;
}

/** Splits a script on unquoted operators, keeping the text between them (with its quotes) intact. */
function tokenizeOps(s: string): Array<string | { op: string }> {
  const out: Array<string | { op: string }> = [];
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\') { i++; continue; }
    if (c === "'") { const e = s.indexOf("'", i + 1); i = e === -1 ? s.length : e; continue; }
    if (c === '"') { for (i++; i < s.length && s[i] !== '"'; i++) if (s[i] === '\\') i++; continue; }
    if (c === '#' && (i === 0 || /\s/.test(s[i - 1]!))) {
      const nl = s.indexOf('\n', i);
      i = (nl === -1 ? s.length : nl) - 1;
      out.push(s.slice(start, i + 1).replace(/#.*$/, ''));
      start = i + 1;
      continue;
    }
    if (c === '$' && s[i + 1] === '(') {
      out.push(s.slice(start, i));
      i = skipParen(s, i + 1);
      start = i + 1;
      continue;
    }
    // `2>&1`, `&>log`, `<&3` are redirections, not operators.
    if (c === '&' && (s[i - 1] === '>' || s[i - 1] === '<' || s[i + 1] === '>')) continue;
    const op = OPS.find((o) => s.startsWith(o, i));
    if (!op) continue;
    out.push(s.slice(start, i), { op });
    i += op.length - 1;
    start = i + 1;
  }
  out.push(s.slice(start));
  return out;
}

/** `$( ... )` command substitution: skipped whole (its output is unknown). */
function skipParen(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')' && --depth === 0) return i;
  }
  return s.length;
}
