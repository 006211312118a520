/**
 * Statements of the static evaluator, as a function body or a module's top level runs them:
 * declarations (with destructuring), `if`/`else`, `switch`, `return`, `throw`, `try`, blocks and
 * assignments into known objects (`config.testMatch = [...]`), and calling a function written in a
 * config (`callFn`: its body runs here). A statement that does not run is read dry. A condition that
 * cannot be known makes the function's result unknown rather than a guess.
 */

import { isComputed, isObject, type Lit } from './lit.ts';
import { dry, eat, kindAt, matchClose, peek, tokAt, type Cur } from './cursor.ts';
import { expr } from './expressions.ts';
import { parseArrowOrFunction } from './functions.ts';
import {
  deeper, lookup, step, strictEquals, truthy, unknown, type FnDef, type Obj, type Scope, type Val,
} from './values.ts';

/** Calls a function written in a config, with known or unknown argument values. */
export function callFn(fn: FnDef, args: Val[]): Val {
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


/** What a statement list ended with: a `return` (its value), or nothing. */
export type Outcome = { value: Val } | undefined;

/** Runs statements from `c.pos` up to (not including) token `end`. */
export function runStatements(c: Cur, scope: Scope, end: number): Outcome {
  while (c.pos < end) {
    const r = runStatement(c, scope);
    if (r) { c.pos = end; return r; }
  }
  return undefined;
}

/** Runs one statement; a statement that does not run is read dry. */
export function runStatement(c: Cur, scope: Scope): Outcome {
  step(c.env.budget);
  const at = c.pos;
  const t = peek(c);
  const kind = kindAt(c);
  if (t === ';') { c.pos++; return undefined; }
  if (t === '{') {
    const close = matchClose(c, c.pos);
    c.pos++;
    const r = runStatements(c, { vars: new Map(), parent: scope }, close);
    c.pos = close + 1;
    return r;
  }
  if (kind === 'id' && (t === 'const' || t === 'let' || t === 'var')) {
    c.pos++;
    declare(c, scope);
    return undefined;
  }
  if (kind === 'id' && (t === 'function' || (t === 'async' && peek(c, 1) === 'function'))) {
    const name = tokAt(c, t === 'async' ? 2 : 1)?.t ?? '';
    scope.vars.set(name, parseArrowOrFunction(c, scope, expr));
    return undefined;
  }
  if (t === 'return') {
    c.pos++;
    if (peek(c) === ';' || peek(c) === '}') return { value: undefined };
    return { value: expr(c, scope) };
  }
  if (t === 'if') return runIf(c, scope);
  if (kind === 'id' && (t === 'for' || t === 'while' || t === 'do')) return skipLoop(c, scope);
  if (t === 'switch') return runSwitch(c, scope);
  if (t === 'throw') {
    c.pos++;
    dry(c, () => expr(c, scope));
    return c.env.dry ? undefined : { value: unknown('throw') };
  }
  if (t === 'try') {
    c.pos++;
    const r = runStatement(c, scope);
    while (peek(c) === 'catch' || peek(c) === 'finally') {
      c.pos++;
      if (peek(c) === '(') c.pos = matchClose(c, c.pos) + 1;
      dry(c, () => runStatement(c, scope));
    }
    return r;
  }
  if (kind === 'id' && assignment(c, scope)) return undefined;
  expr(c, scope);
  if (c.pos === at) c.pos++;
  return undefined;
}

/** Loops are not run: their body is read dry, and what they would have built stays as it was (noted). */
function skipLoop(c: Cur, scope: Scope): Outcome {
  const kw = peek(c);
  c.pos++;
  if (kw !== 'do' && peek(c) === '(') c.pos = matchClose(c, c.pos) + 1;
  if (!c.env.dry) {
    c.env.note(`a \`${kw}\` loop was not run; values it builds are left as they were before it`);
  }
  dry(c, () => runStatement(c, scope));
  if (kw === 'do' && peek(c) === 'while') { c.pos++; if (peek(c) === '(') c.pos = matchClose(c, c.pos) + 1; }
  return undefined;
}

function condition(c: Cur, scope: Scope): { value: Val; text: string } {
  c.pos++;
  const open = c.pos;
  const close = matchClose(c, open);
  c.pos = open + 1;
  const value = expr(c, scope);
  c.pos = open + 1;
  const text = c.env.src.slice(c.env.toks[open + 1]?.start ?? 0, c.env.toks[close]?.start ?? 0);
  c.pos = close + 1;
  return { value, text };
}

function runIf(c: Cur, scope: Scope): Outcome {
  const { value, text } = condition(c, scope);
  const t = truthy(value);
  const a = t === true ? runStatement(c, scope) : dry(c, () => runStatement(c, scope));
  let b: Outcome;
  if (eat(c, 'else')) { b = t === false ? runStatement(c, scope) : dry(c, () => runStatement(c, scope)); }
  if (t === undefined) return c.env.dry ? undefined : { value: unknown(`if (${text.trim()})`) };
  if (!c.env.dry && /process\.env/.test(text)) {
    c.env.note(`took the branch of \`if (${text.trim()})\` that runs with the variable unset`);
  }
  return t ? a : b;
}

function runSwitch(c: Cur, scope: Scope): Outcome {
  const { value } = condition(c, scope);
  const close = matchClose(c, c.pos);
  c.pos++;
  let running = false;
  let result: Outcome;
  let done = false;
  let defaultAt = -1;
  while (c.pos < close) {
    if (peek(c) === 'case' || peek(c) === 'default') {
      const isDefault = peek(c) === 'default';
      c.pos++;
      let eq: boolean | undefined = false;
      if (isDefault) defaultAt = c.pos; else { const v = expr(c, scope); eq = strictEquals(value, v); }
      eat(c, ':');
      if (eq === undefined && !done && !running) {
        done = true;
        result = c.env.dry ? undefined : { value: unknown('switch') };
      }
      if (eq === true && !done) running = true;
      continue;
    }
    if (peek(c) === 'break' && running) { c.pos++; running = false; done = true; continue; }
    const r = running && !done ? runStatement(c, scope) : dry(c, () => runStatement(c, scope));
    if (r && running && !done) { result = r; done = true; running = false; }
  }
  if (!done && defaultAt !== -1) {
    c.pos = defaultAt + (peek({ env: c.env, pos: defaultAt }) === ':' ? 1 : 0);
    const r = runStatements(c, scope, close);
    result = r;
  }
  c.pos = close + 1;
  return result;
}

/** `const a = 1, { b, c: d } = x, [e] = y` (a type annotation may sit before `=`). */
export function declare(c: Cur, scope: Scope, onBind?: (name: string, v: Val) => void): void {
  for (;;) {
    const at = c.pos;
    const first = peek(c);
    let names: Array<[string, (v: Val) => Val]> = [];
    if (first === '{' || first === '[') {
      const close = matchClose(c, c.pos);
      names = patternNames(c, c.pos, close, first === '[');
      c.pos = close + 1;
    } else { names = [[first ?? '', (v) => v]]; c.pos++; }
    if (peek(c) === ':') {
      while (c.pos < c.env.toks.length && peek(c) !== '=' && peek(c) !== ';' && peek(c) !== ',') {
        if (peek(c) === '{' || peek(c) === '(' || peek(c) === '[') c.pos = matchClose(c, c.pos);
        c.pos++;
      }
    }
    let v: Val = undefined;
    if (eat(c, '=')) v = expr(c, scope);
    for (const [n, pick] of names) { const x = pick(v); scope.vars.set(n, x); onBind?.(n, x); }
    if (eat(c, ',')) continue;
    eat(c, ';');
    if (c.pos === at) c.pos++;
    return;
  }
}

/** Names bound by `{ a, b: c, ...rest }` or `[a, , b]`, each with how it reads its value. */
function patternNames(c: Cur, open: number, close: number, array: boolean): Array<[string, (v: Val) => Val]> {
  const toks = c.env.toks;
  const out: Array<[string, (v: Val) => Val]> = [];
  let index = 0;
  for (let j = open + 1; j < close; j++) {
    const tok = toks[j]!;
    if (tok.t === ',') { index++; continue; }
    if (tok.kind !== 'id' || toks[j - 1]!.t === '=') continue;
    if (array) {
      const i = index;
      out.push([tok.t, (v) => (Array.isArray(v) ? v[i] : isComputed(v) ? unknown(`${tok.t}`) : undefined)]);
      continue;
    }
    if (toks[j + 1]?.t === ':') {
      const key = tok.t;
      const local = toks[j + 2]?.t ?? key;
      out.push([local, (v) => pick(v, key)]);
      j += 2;
      continue;
    }
    if (toks[j - 1]!.t === '...') { out.push([tok.t, (v) => v]); continue; }
    const key = tok.t;
    out.push([key, (v) => pick(v, key)]);
  }
  return out;
}

function pick(v: Val, key: string): Val {
  const members = (v as { members?: Obj } | undefined)?.members;
  if (isComputed(v) && members) return members[key] ?? unknown(key);
  if (isObject(v)) {
    return key in v ? v[key] : Object.keys(v).some((k) => k.startsWith('...')) ? unknown(key) : undefined;
  }
  return isComputed(v) ? unknown(key) : undefined;
}

/** `a.b.c = value` on a binding holding a known object; `false` when the statement is not one. */
function assignment(c: Cur, scope: Scope): boolean {
  const toks = c.env.toks;
  let j = c.pos + 1;
  const path: string[] = [];
  while (toks[j]?.t === '.' && toks[j + 1]?.kind === 'id') { path.push(toks[j + 1]!.t); j += 2; }
  if (toks[j]?.t !== '=') return false;
  const name = toks[c.pos]!.t;
  c.pos = j + 1;
  const v = expr(c, scope);
  if (c.env.dry) return true;
  if (path.length === 0) {
    // `x = value` on a `let`: the binding where it was declared changes.
    for (let s: Scope | undefined = scope; s; s = s.parent) {
      if (s.vars.has(name)) {
        s.vars.set(name, v);
        break;
      }
    }
    return true;
  }
  let target: Val = name === 'module' || name === 'exports' ? undefined : lookup(scope, name).value;
  for (const p of path.slice(0, -1)) target = isObject(target) ? target[p] : undefined;
  if (isObject(target)) (target as Obj)[path[path.length - 1]!] = (v ?? null) as Lit;
  return true;
}
