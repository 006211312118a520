/**
 * Expressions of the static evaluator: parsed from tokens and evaluated in one pass, over a scope of
 * known values. Anything it cannot know (a package's export, a computed key, an unknown call) becomes an
 * unknown carrying its source text; operators on unknowns stay unknown, while objects and arrays around
 * them keep their known parts. A branch that does not run is read dry (cursor.ts).
 */

import { isComputed, tokenLiteral } from './lit.ts';
import { dry, eat, matchClose, peek, textFrom, tokAt, type Cur } from './cursor.ts';
import { argList, call, member, skipType } from './calls.ts';
import { arrayLit, importMeta, objectLit, template } from './literals.ts';
import { parseArrowOrFunction } from './functions.ts';
import {
  deeper, grow, isFn, lookup, step, strictEquals, toText, truthy, unknown, type Scope, type Val,
} from './values.ts';

/** Parses one expression (no comma operator) at `c.pos` and evaluates it in `scope`. */
export function expr(c: Cur, scope: Scope): Val {
  return deeper(c.env.budget, () => conditional(c, scope));
}

function conditional(c: Cur, scope: Scope): Val {
  const from = c.pos;
  const test = binary(c, scope, 0);
  if (peek(c) !== '?') return test;
  c.pos++;
  const t = truthy(test);
  const pick = (run: boolean | undefined): Val =>
    (run ? expr(c, scope) : (dry(c, () => expr(c, scope)), undefined));
  const a = pick(t === true);
  eat(c, ':');
  const b = pick(t === false);
  if (t === undefined) return unknown(textFrom(c, from));
  return t ? a : b;
}

const LEVELS: ReadonlyArray<ReadonlySet<string>> = [
  new Set(['??', '||']), new Set(['&&']), new Set(['===', '!==', '==', '!=']),
  new Set(['<', '>', 'instanceof', 'in']), new Set(['+', '-']), new Set(['*', '/', '%']),
];

function binary(c: Cur, scope: Scope, level: number): Val {
  if (level === LEVELS.length) return unary(c, scope);
  const from = c.pos;
  let left = binary(c, scope, level + 1);
  for (
    let op = peek(c);
    op !== undefined && LEVELS[level]!.has(op) && tokAt(c)!.kind !== 'str';
    op = peek(c)
  ) {
    c.pos++;
    if (peek(c) === '=' && (op === '<' || op === '>')) c.pos++;
    const lt = truthy(left);
    // Short circuit: the right side of `a || b` does not run when `a` is truthy.
    const skip = (op === '||' && lt === true) || (op === '&&' && lt === false)
      || (op === '??' && !isComputed(left) && left !== null && left !== undefined);
    if (skip) { dry(c, () => binary(c, scope, level + 1)); continue; }
    const right = binary(c, scope, level + 1);
    left = grow(c.env.budget, apply(op, left, right, textFrom(c, from)));
  }
  return left;
}

function apply(op: string, a: Val, b: Val, text: string): Val {
  if (op === '||' || op === '&&' || op === '??') {
    if (op === '??') return isComputed(a) ? unknown(text) : a === null || a === undefined ? b : a;
    const t = truthy(a);
    return t === undefined ? unknown(text) : (op === '||') === t ? a : b;
  }
  if (op === '===' || op === '!==' || op === '==' || op === '!=') {
    const eq = op.length === 3 ? strictEquals(a, b) : looseEquals(a, b);
    return eq === undefined ? unknown(text) : op.startsWith('!') ? !eq : eq;
  }
  if (op === '+' && (typeof a === 'string' || typeof b === 'string')) {
    const x = toText(a); const y = toText(b);
    return x === undefined || y === undefined ? unknown(text) : x + y;
  }
  if (typeof a !== 'number' || typeof b !== 'number') return unknown(text);
  switch (op) {
    case '+': return a + b; case '-': return a - b; case '*': return a * b;
    case '/': return a / b; case '%': return a % b;
    case '<': return a < b; case '>': return a > b;
  }
  return unknown(text);
}

function looseEquals(a: Val, b: Val): boolean | undefined {
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  return strictEquals(a, b);
}

function unary(c: Cur, scope: Scope): Val {
  const from = c.pos;
  const t = peek(c);
  if (t === '!' || t === '-' || t === '+' || t === 'typeof' || t === 'void' || t === 'await') {
    c.pos++;
    // A chain of a million `-` would otherwise overflow the stack.
    const v = deeper(c.env.budget, () => unary(c, scope));
    if (t === 'await') return v;
    if (t === 'void') return undefined;
    if (t === '!') { const b = truthy(v); return b === undefined ? unknown(textFrom(c, from)) : !b; }
    if (t === 'typeof') {
      return isComputed(v) ? unknown(textFrom(c, from))
        : v === null ? 'object' : Array.isArray(v) ? 'object' : typeof v;
    }
    return typeof v === 'number' ? (t === '-' ? -v : v) : unknown(textFrom(c, from));
  }
  if (t === 'new') {
    c.pos++;
    const v = postfix(c, scope, from);
    // An unknown constructed value reads as the whole `new X(...)`, not the bare constructor.
    return isComputed(v) && !isFn(v) ? unknown(textFrom(c, from)) : v;
  }
  return postfix(c, scope, from);
}

function postfix(c: Cur, scope: Scope, from: number): Val {
  let v = primary(c, scope);
  let self: Val = undefined;
  for (;;) {
    step(c.env.budget);
    const t = peek(c);
    if (t === '.' || t === '?.') {
      c.pos++;
      if (peek(c) === '(' || peek(c) === '[') continue; // `f?.()` / `a?.[k]`
      const name = peek(c) ?? '';
      c.pos++;
      self = v;
      v = member(c, v, name, textFrom(c, from));
    } else if (t === '[') {
      c.pos++;
      const key = expr(c, scope);
      eat(c, ']');
      self = v;
      v = typeof key === 'string' || typeof key === 'number'
        ? member(c, v, String(key), textFrom(c, from))
        : unknown(textFrom(c, from));
    } else if (t === '(') {
      const args = argList(c, scope, expr);
      v = call(c, v, self, args, textFrom(c, from));
      self = undefined;
    } else if (t === '!' && peek(c, 1) !== '=') {
      c.pos++; // TypeScript non-null assertion
    } else if (t === 'as' || t === 'satisfies') {
      c.pos++;
      skipType(c);
    } else return v;
  }
}

function primary(c: Cur, scope: Scope): Val {
  step(c.env.budget);
  const from = c.pos;
  const tok = tokAt(c);
  if (!tok) return unknown('');
  c.pos++;
  const literal = tokenLiteral(tok);
  if (literal !== undefined) return literal;
  if (tok.kind === 'tmpl') return template(c, scope, tok.value!, expr);
  const t = tok.t;
  if (tok.kind === 'id') {
    if (t === 'true' || t === 'false') return t === 'true';
    if (t === 'null') return null;
    if (t === 'undefined') return undefined;
    if (t === 'function' || t === 'async' || (peek(c) === '=>')) {
      c.pos = from;
      return parseArrowOrFunction(c, scope, expr);
    }
    if (t === 'import' && peek(c) === '.' && peek(c, 1) === 'meta') { c.pos += 2; return importMeta(c); }
    const found = lookup(scope, t);
    if (found.has) return found.value;
    return unknown(t);
  }
  if (t === '(') {
    const close = matchClose(c, from);
    if (c.env.toks[close + 1]?.t === '=>') { c.pos = from; return parseArrowOrFunction(c, scope, expr); }
    const v = expr(c, scope);
    while (eat(c, ',')) expr(c, scope);
    eat(c, ')');
    return v;
  }
  if (t === '[') return arrayLit(c, scope, expr);
  if (t === '{') return objectLit(c, scope, expr);
  return unknown(t);
}
