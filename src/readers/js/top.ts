/**
 * Module-level statements of the static evaluator: `import`/`export` in all their forms,
 * `module.exports = ...`, `module.exports.x = ...`, `exports.x = ...`, TypeScript-only declarations
 * (skipped), and any other statement run as a function body's would be (statements.ts).
 */

import { isComputed, isObject, type Lit } from './lit.ts';
import { dry, eat, kindAt, matchClose, peek, tokAt, type Cur } from './cursor.ts';
import { expr } from './expressions.ts';
import { declare, runStatement } from './statements.ts';
import { parseArrowOrFunction } from './functions.ts';
import { step, unknown, type Obj, type Scope, type Val } from './values.ts';

/** What a module exports: ESM named and default exports, and CommonJS `module.exports` once assigned. */
export interface ModuleRecord { named: Obj; exports: Val; default: Val }

/** Runs a module's top level, filling `rec`. */
export function runTopLevel(c: Cur, scope: Scope, rec: ModuleRecord): void {
  const n = c.env.toks.length;
  hoistFunctions(c, scope);
  while (c.pos < n) {
    step(c.env.budget);
    const at = c.pos;
    const t = peek(c);
    if (kindAt(c) === 'id') {
      if (t === 'import' && peek(c, 1) !== '(' && peek(c, 1) !== '.') { importDecl(c, scope); continue; }
      if (t === 'export') { exportDecl(c, scope, rec); continue; }
      if (
        (t === 'module' && peek(c, 1) === '.' && peek(c, 2) === 'exports')
        || (t === 'exports' && peek(c, 1) === '.')
      ) {
        if (commonJs(c, scope, rec)) continue;
      }
      if (skipTypeScript(c)) continue;
    }
    const r = runStatement(c, scope);
    if (r && c.pos === at) c.pos++;
  }
}

// A token after which `function` starts a declaration, not an expression (`x = function f() {}`).
const BEFORE_DECLARATION = new Set([';', '}', ')', ']', 'export', 'default', 'async']);

/**
 * Top-level function declarations are hoisted, as JS does: a config calls `project('threads')` in its
 * export and declares `function project(pool) {...}` below it. Only their parameters and where their
 * body lies are read here; bodies run when called.
 */
function hoistFunctions(c: Cur, scope: Scope): void {
  const toks = c.env.toks;
  const start = c.pos;
  // One pass at bracket depth 0, linear in the tokens (which the source's size cap bounds): the step
  // budget is left whole for evaluating.
  let depth = 0;
  for (let j = start; j < toks.length; j++) {
    const tok = toks[j]!;
    if (tok.kind === 'punct') {
      if (tok.t === '(' || tok.t === '[' || tok.t === '{') depth++;
      else if ((tok.t === ')' || tok.t === ']' || tok.t === '}') && depth > 0) depth--;
      continue;
    }
    if (depth > 0 || tok.kind !== 'id' || tok.t !== 'function') continue;
    const before = toks[j - 1];
    const name = toks[j + 1];
    if (before !== undefined && before.kind === 'punct' && !BEFORE_DECLARATION.has(before.t)) continue;
    if (
      before !== undefined && before.kind === 'id'
      && !BEFORE_DECLARATION.has(before.t) && before.t !== 'async'
    ) continue;
    if (name?.kind !== 'id' || scope.vars.has(name.t)) continue;
    step(c.env.budget);
    c.pos = j;
    scope.vars.set(name.t, parseArrowOrFunction(c, scope, expr));
    j = c.pos - 1;
  }
  c.pos = start;
}

/** `import a, { b as c, type D } from 'x'`, `import * as ns from 'x'`, `import 'x'`, `import type ...`. */
function importDecl(c: Cur, scope: Scope): void {
  c.pos++;
  if (peek(c) === 'type' && peek(c, 1) !== ',' && peek(c, 1) !== 'from') { skipToFrom(c); return; }
  const binds: Array<[local: string, imported: string]> = [];
  while (c.pos < c.env.toks.length && peek(c) !== 'from' && kindAt(c) !== 'str') {
    const t = peek(c);
    if (t === '*') { binds.push([peek(c, 2) ?? '', '*']); c.pos += 3; }
    else if (t === '{') {
      const close = matchClose(c, c.pos);
      for (let j = c.pos + 1; j < close; j++) {
        const tok = c.env.toks[j]!;
        if (tok.kind !== 'id' && tok.kind !== 'str') continue;
        if (tok.t === 'type' && c.env.toks[j + 1]?.kind === 'id') {
          j++;
          while (j < close && c.env.toks[j]!.t !== ',') j++;
          continue;
        }
        const imported = tok.kind === 'str' ? tok.value! : tok.t;
        let local = imported;
        if (c.env.toks[j + 1]?.t === 'as') { local = c.env.toks[j + 2]?.t ?? imported; j += 2; }
        binds.push([local, imported]);
      }
      c.pos = close + 1;
    } else if (kindAt(c) === 'id') { binds.push([t!, 'default']); c.pos++; }
    else c.pos++;
  }
  eat(c, 'from');
  const spec = tokAt(c)?.value ?? '';
  c.pos++;
  if (peek(c) === 'with' || peek(c) === 'assert') {
    c.pos++;
    if (peek(c) === '{') c.pos = matchClose(c, c.pos) + 1;
  }
  if (binds.length === 0) return;
  const text = `import from '${spec}'`;
  const ns = c.env.namespace(spec, text);
  for (const [local, imported] of binds) {
    if (imported === '*') scope.vars.set(local, ns);
    else if (imported === 'default') scope.vars.set(local, c.env.load(spec, text));
    else scope.vars.set(local, pick(ns, imported));
  }
}

function pick(ns: Val, name: string): Val {
  const members = (ns as { members?: Obj } | undefined)?.members;
  if (members) return members[name] ?? unknown(name);
  if (isObject(ns)) return name in ns ? ns[name] : unknown(name);
  return unknown(name);
}

function skipToFrom(c: Cur): void {
  while (c.pos < c.env.toks.length && peek(c) !== 'from') c.pos++;
  c.pos += 2;
}

function exportDecl(c: Cur, scope: Scope, rec: ModuleRecord): void {
  c.pos++;
  const t = peek(c);
  if (t === 'default') {
    c.pos++;
    if (peek(c) === 'function' || (peek(c) === 'async' && peek(c, 1) === 'function')) {
      const name = tokAt(c, peek(c) === 'async' ? 2 : 1);
      if (name?.kind === 'id' && name.t !== '(') {
        runStatement(c, scope);
        rec.default = scope.vars.get(name.t);
        return;
      }
    }
    rec.default = expr(c, scope);
    eat(c, ';');
    return;
  }
  if (t === 'const' || t === 'let' || t === 'var') {
    c.pos++;
    declare(c, scope, (name, v) => { rec.named[name] = (v ?? null) as Lit; });
    return;
  }
  if (t === 'function' || t === 'async') {
    const name = tokAt(c, t === 'async' ? 2 : 1)?.t ?? '';
    runStatement(c, scope);
    rec.named[name] = (scope.vars.get(name) ?? null) as Lit;
    return;
  }
  if (t === '{') {
    const close = matchClose(c, c.pos);
    const pairs: Array<[string, string]> = [];
    for (let j = c.pos + 1; j < close; j++) {
      const tok = c.env.toks[j]!;
      if (tok.kind !== 'id') continue;
      let out = tok.t;
      if (c.env.toks[j + 1]?.t === 'as') { out = c.env.toks[j + 2]?.t ?? out; j += 2; }
      pairs.push([tok.t, out]);
    }
    c.pos = close + 1;
    let from: Val;
    if (eat(c, 'from')) { from = c.env.namespace(tokAt(c)?.value ?? '', 'export from'); c.pos++; }
    for (const [local, out] of pairs) {
      const v = from !== undefined ? pick(from, local)
        : scope.vars.has(local) ? scope.vars.get(local)
          : unknown(local);
      if (out === 'default') rec.default = v; else rec.named[out] = (v ?? null) as Lit;
    }
    return;
  }
  if (t === '*') {
    // `export * from 'x'` re-exports x's named exports (never its default); `export * as ns from 'x'` one
    // namespace.
    const alias = peek(c, 1) === 'as' ? peek(c, 2) : undefined;
    while (c.pos < c.env.toks.length && peek(c) !== 'from') c.pos++;
    const spec = tokAt(c, 1)?.value ?? '';
    c.pos += 2;
    const ns = c.env.namespace(spec, 'export *');
    if (alias) { rec.named[alias] = (ns ?? null) as Lit; return; }
    if (ns === null || typeof ns !== 'object' || Array.isArray(ns) || isComputed(ns)) return;
    for (const [k, v] of Object.entries(ns)) {
      if (k !== 'default' && !(k in rec.named)) rec.named[k] = v as Lit;
    }
    return;
  }
  // `export type X = ...`, `export interface X {}`, `export class X {}`.
  if (!skipTypeScript(c)) runStatement(c, scope);
}

/** `module.exports = v`, `module.exports.k = v`, `exports.k = v`; false when the statement is not one. */
function commonJs(c: Cur, scope: Scope, rec: ModuleRecord): boolean {
  let j = c.pos + (peek(c) === 'module' ? 3 : 1);
  const path: string[] = [];
  if (peek(c) === 'exports') j = c.pos + 1;
  while (c.env.toks[j]?.t === '.' && c.env.toks[j + 1]?.kind === 'id') {
    path.push(c.env.toks[j + 1]!.t);
    j += 2;
  }
  if (c.env.toks[j]?.t !== '=') return false;
  c.pos = j + 1;
  const v = expr(c, scope);
  if (path.length === 0) { rec.exports = v; return true; }
  if (path.length === 1 && path[0] === 'default' && peek(c) !== '.') { rec.default = v; return true; }
  if (!isObject(rec.exports)) {
    rec.exports = rec.exports === undefined ? Object.assign(Object.create(null), rec.named) : rec.exports;
  }
  if (isObject(rec.exports)) (rec.exports as Obj)[path[0]!] = (v ?? null) as Lit;
  rec.named[path[0]!] = (v ?? null) as Lit;
  return true;
}

/** Skips `type X = ...`, `interface X {...}`, `declare ...`, `enum X {...}`, `class X {...}`. */
function skipTypeScript(c: Cur): boolean {
  const t = peek(c);
  const next = tokAt(c, 1);
  if (t === 'type' && next?.kind === 'id') {
    c.pos += 2;
    if (peek(c) === '<') while (c.pos < c.env.toks.length && peek(c) !== '=') c.pos++;
    if (eat(c, '=')) dry(c, () => expr(c, { vars: new Map() }));
    return true;
  }
  if (
    (t === 'interface' || t === 'enum' || t === 'class' || t === 'declare' || t === 'namespace')
    && next?.kind === 'id'
  ) {
    while (c.pos < c.env.toks.length && peek(c) !== '{' && peek(c) !== ';') c.pos++;
    if (peek(c) === '{') c.pos = matchClose(c, c.pos);
    c.pos++;
    return true;
  }
  return false;
}
