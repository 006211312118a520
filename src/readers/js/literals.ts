/**
 * Literals of the static evaluator: object literals (spreads of known values merged in place, unknown
 * spreads and computed keys kept as `...N` markers beside the known keys), array literals, template
 * literals (each `${...}` read as an expression) and `import.meta`.
 */

import { isComputed, isObject, type Lit } from './lit.ts';
import { tokenize } from './tokens.ts';
import { dirOf } from './builtins.ts';
import { eat, matchClose, peek, textFrom, tokAt, type Cur, type ReadExpr } from './cursor.ts';
import { parseArrowOrFunction } from './functions.ts';
import {
  grow, isFn, lookup, toText, unknown, type Env, type FnVal, type Obj, type Scope, type Val,
} from './values.ts';

export function importMeta(c: Cur): Val {
  if (peek(c) !== '.') return unknown('import.meta');
  const name = peek(c, 1);
  c.pos += 2;
  const file = c.env.file;
  if (name === 'url') return 'file://' + file;
  if (name === 'dirname') return dirOf(file);
  if (name === 'filename') return file;
  return unknown(`import.meta.${name}`);
}

/** A template literal: each `${...}` is read as an expression of its own. */
export function template(c: Cur, scope: Scope, raw: string, expr: ReadExpr): Val {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== '$' || raw[i + 1] !== '{') { out += raw[i]; continue; }
    let depth = 0;
    let j = i + 1;
    for (; j < raw.length; j++) {
      if (raw[j] === '{') depth++;
      else if (raw[j] === '}' && --depth === 0) break;
    }
    const inner = raw.slice(i + 2, j);
    const sub: Env = Object.assign(Object.create(c.env) as Env, { toks: tokenize(inner), src: inner });
    const v = expr({ env: sub, pos: 0 }, scope);
    const s = toText(v);
    if (s === undefined) return unknown('`' + raw + '`');
    out += s;
    grow(c.env.budget, out);
    i = j;
  }
  return out;
}

/** An array literal after its `[`; `expr` reads each element. */
export function arrayLit(c: Cur, scope: Scope, expr: ReadExpr): Val {
  const out: Lit[] = [];
  while (c.pos < c.env.toks.length && peek(c) !== ']') {
    const at = c.pos;
    if (eat(c, ',')) { out.push(null); continue; }
    if (peek(c) === '...') {
      c.pos++;
      const v = expr(c, scope);
      if (Array.isArray(v)) for (const x of grow(c.env.budget, v)) out.push(x);
      else out.push({ computed: isComputed(v) ? v.computed : textFrom(c, at + 1), spread: true });
    } else out.push((expr(c, scope) ?? null) as Lit);
    if (peek(c) === ',') c.pos++;
    else if (peek(c) !== ']') c.pos = Math.max(c.pos, at + 1);
  }
  c.pos++;
  return grow(c.env.budget, out);
}

/** An object literal after its `{`; `expr` reads each value. */
export function objectLit(c: Cur, scope: Scope, expr: ReadExpr): Val {
  const out: Obj = Object.create(null);
  let unknowns = 0;
  while (c.pos < c.env.toks.length && peek(c) !== '}') {
    const at = c.pos;
    const tok = tokAt(c)!;
    if (tok.t === '...') {
      c.pos++;
      const v = expr(c, scope);
      if (isObject(v)) Object.assign(out, grow(c.env.budget, v));
      else if (isComputed(v)) out[`...${unknowns++}`] = unknown(v.computed);
    } else if (tok.t === '[') {
      c.pos++;
      const key = expr(c, scope);
      c.pos = matchClose(c, at) + 1;
      eat(c, ':');
      const v = expr(c, scope);
      if (typeof key === 'string' || typeof key === 'number') out[String(key)] = (v ?? null) as Lit;
      else out[`...${unknowns++}`] = unknown(textFrom(c, at));
    } else if (tok.kind === 'id' || tok.kind === 'str' || tok.kind === 'num') {
      const key = tok.kind === 'str' ? tok.value! : tok.t;
      const next = peek(c, 1);
      if (
        (key === 'async' || key === 'get' || key === 'set')
        && next !== ':' && next !== ',' && next !== '}' && next !== '('
      ) {
        c.pos++;
        continue;
      }
      if (next === ':') { c.pos += 2; const v = expr(c, scope); if (v !== undefined) out[key] = v; }
      else if (next === '(') { c.pos++; out[key] = parseMethod(c, scope, key, expr) as Lit; }
      else {
        c.pos++;
        const f = lookup(scope, key);
        const v = f.has ? f.value : unknown(key);
        if (v !== undefined) out[key] = v;
      }
    } else c.pos++;
    if (peek(c) === ',') c.pos++;
    else if (peek(c) !== '}') c.pos = Math.max(c.pos, at + 1);
  }
  c.pos++;
  return out;
}

/** `key(params) { body }` inside an object literal. */
function parseMethod(c: Cur, scope: Scope, name: string, expr: ReadExpr): Val {
  const fn = parseArrowOrFunction(c, scope, expr, true);
  return isFn(fn) ? ({ ...fn, computed: `${name}()` } as FnVal) : unknown(`${name}()`);
}

