/**
 * Functions of the static evaluator: arrow/function definitions become values that can be called, their
 * bodies run over the argument values (statements in js-eval-stmt.ts). A condition that cannot be known
 * makes the function's result unknown rather than a guess.
 */

import { isComputed, isObject } from './literal.ts';
import { dryExpr, expr, matchClose, textFrom, type Cur } from './expressions.ts';
import { runStatements } from './statements.ts';
import { deeper, unknown, type FnVal, type Param, type Scope, type Val } from './values.ts';

const peek = (c: Cur, k = 0): string | undefined => c.env.toks[c.pos + k]?.t;

/** Reads `function f(a) {...}`, `async (a, b) => ...`, `x => ...` or a method's `(a) {...}` as a value. */
export function parseArrowOrFunction(c: Cur, scope: Scope, methodForm = false): Val {
  const from = c.pos;
  if (peek(c) === 'async') c.pos++;
  if (peek(c) === 'function') { c.pos++; if (peek(c) === '*') c.pos++; if (c.env.toks[c.pos]?.kind === 'id') c.pos++; }
  let params: Param[];
  if (peek(c) === '(') {
    const close = matchClose(c, c.pos);
    params = readParams(c, c.pos + 1, close);
    c.pos = close + 1;
  } else {
    params = [{ name: peek(c) ?? '' }];
    c.pos++;
  }
  // A return type annotation: `(): Config => ...` / `function f(): Config {`.
  if (peek(c) === ':') while (c.pos < c.env.toks.length && peek(c) !== '=>' && peek(c) !== '{') c.pos++;
  if (peek(c) === '=>') c.pos++;
  else if (peek(c) !== '{' && !methodForm) return unknown(textFrom(c, from));
  let body: number; let bodyEnd: number; let block = false;
  // After `=>`, a bare `{` always opens a block in JS (an object body is written `({ ... })`).
  if (peek(c) === '{') {
    block = true;
    body = c.pos + 1;
    bodyEnd = matchClose(c, c.pos);
    c.pos = bodyEnd + 1;
  } else {
    body = c.pos;
    dryExpr(c, scope);
    bodyEnd = c.pos;
  }
  const fn: FnVal = { computed: textFrom(c, from), fn: { params, env: c.env, body, bodyEnd, block, scope } };
  return fn;
}

function readParams(c: Cur, from: number, to: number): Param[] {
  const out: Param[] = [];
  let depth = 0;
  let start = from;
  const toks = c.env.toks;
  const push = (a: number, b: number): void => {
    if (a >= b) return;
    const first = toks[a]!;
    if (first.t === '{') {
      const names: string[] = [];
      for (let j = a + 1; j < b; j++) if (toks[j]!.kind === 'id' && toks[j - 1]!.t !== ':' && (toks[j + 1]?.t === ',' || toks[j + 1]?.t === '}' || toks[j + 1]?.t === '=')) names.push(toks[j]!.t);
      out.push({ names });
    } else out.push({ name: first.t === '...' ? toks[a + 1]?.t ?? '' : first.t });
  };
  for (let j = from; j < to; j++) {
    const t = toks[j]!.t;
    if (t === '(' || t === '[' || t === '{') depth++;
    else if (t === ')' || t === ']' || t === '}') depth--;
    else if (t === ',' && depth === 0) { push(start, j); start = j + 1; }
  }
  push(start, to);
  return out;
}

/** Calls a function written in a config, with known or unknown argument values. */
export function callFn(fn: NonNullable<FnVal['fn']>, args: Val[]): Val {
  return deeper(fn.env.budget, () => {
    const vars = new Map<string, Val>();
    fn.params.forEach((p, i) => {
      const a = args[i];
      if ('name' in p) vars.set(p.name, a);
      else for (const n of p.names) vars.set(n, isObject(a) ? a[n] : isComputed(a) ? unknown(n) : undefined);
    });
    const scope: Scope = { vars, parent: fn.scope };
    const c: Cur = { env: fn.env, pos: fn.body };
    if (!fn.block) return expr(c, scope);
    const r = runStatements(c, scope, fn.bodyEnd);
    return r ? r.value : undefined;
  });
}

