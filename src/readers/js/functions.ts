/**
 * Function definitions of the static evaluator: `function f(a) {...}`, arrows and methods become values
 * holding their parameters and where their body lies; calling one runs that body (`callFn`,
 * statements.ts). An arrow's expression body is read dry here, only to find where it ends.
 */

import { dry, eat, matchClose, peek, textFrom, tokAt, type Cur, type ReadExpr } from './cursor.ts';
import { unknown, type FnVal, type Param, type Scope, type Val } from './values.ts';

/**
 * Reads `function f(a) {...}`, `async (a, b) => ...`, `x => ...` or a method's `(a) {...}` as a value;
 * `expr` reads an expression body (dry).
 */
export function parseArrowOrFunction(c: Cur, scope: Scope, expr: ReadExpr, methodForm = false): Val {
  const from = c.pos;
  eat(c, 'async');
  if (eat(c, 'function')) { eat(c, '*'); if (tokAt(c)?.kind === 'id') c.pos++; }
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
    dry(c, () => expr(c, scope));
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
      for (let j = a + 1; j < b; j++) {
        if (
          toks[j]!.kind === 'id' && toks[j - 1]!.t !== ':'
          && (toks[j + 1]?.t === ',' || toks[j + 1]?.t === '}' || toks[j + 1]?.t === '=')
        ) names.push(toks[j]!.t);
      }
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
