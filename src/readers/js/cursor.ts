/**
 * The cursor every part of the static evaluator reads tokens with: a position in one module's tokens,
 * looking ahead (`peek`), consuming an expected token (`eat`), finding a bracket's close (`matchClose`),
 * the source text of what was read (`textFrom`), and dry reading: code that does not run (the untaken
 * branch, a short-circuited operand, a loop body) is parsed to find where it ends, with no call made
 * and nothing noted, through `dry` only. `skipExpr` passes over an expression without reading it: the
 * static queries (literal.ts) use it past a value the budget stopped or an item a list left unread.
 */

import type { Tok } from './tokens.ts';
import { step, type Env, type Scope, type Val } from './values.ts';

/** A position in a token list, with nothing of an evaluation: all `skipExpr` needs. */
export interface TokenCursor {
  readonly env: { readonly toks: readonly Tok[]; readonly src: string };
  pos: number;
}

/** A position in one module's tokens, as the evaluator reads them (with the module's budget and notes). */
export interface Cur extends TokenCursor { readonly env: Env }

/**
 * The expression reader, handed to the parts below expressions.ts (literals, calls, functions), which
 * read expressions inside them but must not import the reader itself.
 */
export type ReadExpr = (c: Cur, scope: Scope) => Val;

/** The text of the token `k` ahead of the cursor (undefined past the end). */
export const peek = (c: TokenCursor, k = 0): string | undefined => c.env.toks[c.pos + k]?.t;

/** The token `k` ahead of the cursor. */
export const tokAt = (c: TokenCursor, k = 0): Tok | undefined => c.env.toks[c.pos + k];

/** The kind of the token `k` ahead of the cursor. */
export const kindAt = (c: TokenCursor, k = 0): Tok['kind'] | undefined => c.env.toks[c.pos + k]?.kind;

/** Consumes the next token when its text is `t`; says whether it did. */
export function eat(c: TokenCursor, t: string): boolean {
  if (c.env.toks[c.pos]?.t !== t) return false;
  c.pos++;
  return true;
}

/** The source from token `from` up to the last token read. */
export function textFrom(c: TokenCursor, from: number): string {
  const a = c.env.toks[from];
  const b = c.env.toks[Math.max(from, c.pos - 1)];
  return a && b ? c.env.src.slice(a.start, b.end) : '';
}

/**
 * Index of the token closing the bracket at `i` (or the last token when unbalanced); each token is a
 * step.
 */
export function matchClose(c: Cur, i: number): number {
  let depth = 0;
  const toks = c.env.toks;
  for (let j = i; j < toks.length; j++) {
    step(c.env.budget);
    const t = toks[j]!;
    if (t.kind !== 'punct') continue;
    if (t.t === '(' || t.t === '[' || t.t === '{') depth++;
    else if (t.t === ')' || t.t === ']' || t.t === '}') { if (--depth === 0) return j; }
  }
  return toks.length - 1;
}

/**
 * Skips one balanced expression without reading it, stopping before a `,` or `;` or a closing bracket
 * at its own level.
 */
export function skipExpr(c: TokenCursor): void {
  let depth = 0;
  const toks = c.env.toks;
  for (; c.pos < toks.length; c.pos++) {
    const t = toks[c.pos]!.t;
    if (toks[c.pos]!.kind !== 'punct') continue;
    if (t === '(' || t === '[' || t === '{') depth++;
    else if (t === ')' || t === ']' || t === '}') { if (depth === 0) return; depth--; }
    else if ((t === ',' || t === ';') && depth === 0) return;
  }
}

/** Reads code that does not run: `read` parses it, while no call is made and nothing is noted. */
export function dry<T>(c: Cur, read: () => T): T {
  c.env.dry++;
  try { return read(); } finally { c.env.dry--; }
}
