/**
 * Member access, calls and argument lists of the static evaluator, and the TypeScript types skipped after
 * `as`/`satisfies`. `process.env.X` reads as unset (noted); a method of a known array or string runs
 * (builtins.ts); a function written in a config runs through `env.invoke`; a call of an unknown function
 * is unknown; nothing is called in a dry branch.
 */

import { isComputed, isObject, isRegex } from './lit.ts';
import { method } from './builtins.ts';
import { matchClose, peek, textFrom, type Cur, type ReadExpr } from './cursor.ts';
import { grow, isFn, isProcessEnv, unknown, type Obj, type Scope, type Val } from './values.ts';

/** Skips a type after `as`/`satisfies`: `const`, `Foo.Bar<Baz>[]`, `{ ... }`. */
export function skipType(c: Cur): void {
  if (peek(c) === '{' || peek(c) === '(' || peek(c) === '[') { c.pos = matchClose(c, c.pos) + 1; return; }
  c.pos++;
  while (peek(c) === '.') c.pos += 2;
  if (peek(c) === '<') {
    let depth = 0;
    for (; c.pos < c.env.toks.length; c.pos++) {
      const t = peek(c);
      if (t === '<') depth++;
      else if (t === '>' && --depth === 0) { c.pos++; break; }
      else if (t === '=>' ) depth--;
    }
  }
  while (peek(c) === '[' && peek(c, 1) === ']') c.pos += 2;
}

/** The arguments of a call at its `(`, each read by `expr`; `...list` of a known list spreads it. */
export function argList(c: Cur, scope: Scope, expr: ReadExpr): Val[] {
  c.pos++;
  const args: Val[] = [];
  while (c.pos < c.env.toks.length && peek(c) !== ')') {
    const at = c.pos;
    if (peek(c) === '...') {
      c.pos++;
      const v = expr(c, scope);
      if (Array.isArray(v)) for (const x of grow(c.env.budget, v)) args.push(x);
      else args.push(unknown(textFrom(c, at)));
    } else args.push(expr(c, scope));
    if (peek(c) === ',') c.pos++;
    else if (peek(c) !== ')') c.pos = Math.max(c.pos, at + 1);
  }
  c.pos++;
  return args;
}

export function member(c: Cur, target: Val, name: string, text: string): Val {
  if (isComputed(target)) {
    if (isProcessEnv(target)) {
      if (!c.env.dry) c.env.note(`assumed process.env.${name} is unset, as in a plain \`npm test\``);
      return undefined;
    }
    const members = (target as unknown as { members?: Obj }).members;
    return members ? (members[name] ?? unknown(text)) : unknown(text);
  }
  if (isObject(target)) {
    if (name in target) return target[name];
    return Object.keys(target).some((k) => k.startsWith('...')) ? unknown(text) : undefined;
  }
  if (Array.isArray(target)) {
    if (name === 'length') return target.length;
    if (/^\d+$/.test(name)) return target[Number(name)];
  }
  if (typeof target === 'string') {
    if (name === 'length') return target.length;
    if (target.startsWith('file://') && name === 'pathname') return decodeURIComponent(target.slice(7));
    if (target.startsWith('file://') && name === 'href') return target;
  }
  if (isRegex(target) && name === 'source') return target.regex;
  return unknown(text);
}

export function call(c: Cur, callee: Val, self: Val, args: Val[], text: string): Val {
  if (c.env.dry) return undefined;
  if (isFn(callee)) {
    if (callee.native) return grow(c.env.budget, callee.native(args, text));
    if (callee.fn) return c.env.invoke(callee.fn, args);
  }
  const m = typeof (callee as { computed?: unknown })?.computed === 'string'
    ? /\.(\w+)$/.exec((callee as { computed: string }).computed)
    : null;
  const viaMethod = m && !isComputed(self)
    ? method(self, m[1]!, (f, a) => (
      f.native ? f.native(a, text) : f.fn ? c.env.invoke(f.fn, a) : unknown(text)))
    : undefined;
  // A method may grow its target in place (`list.push(...)`): the target is charged too.
  if (viaMethod?.native) {
    const out = grow(c.env.budget, viaMethod.native(args, text));
    grow(c.env.budget, self);
    return out;
  }
  return unknown(text);
}

