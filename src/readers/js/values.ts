/**
 * Values of the static JS evaluator (this folder). A value is a `Lit` (lit.ts) or `undefined`;
 * a function is a `Computed` carrying its definition, so code that only knows `Lit` treats it as unknown.
 * Also the evaluator's budget: every step, nesting level and module counts against it, so a hostile
 * config ends in an honest "unknown" instead of a stalled scan.
 */

import { isComputed, isObject, isRegex, type Computed, type Lit } from './lit.ts';
import type { Tok } from './tokens.ts';

export type Val = Lit | undefined;
export type Obj = { [key: string]: Lit };

/** A function written in the module: its parameter names and body tokens (an expression or a block). */
export interface FnDef {
  readonly params: readonly Param[];
  readonly env: Env;
  readonly body: number;
  readonly bodyEnd: number;
  readonly block: boolean;
  readonly scope: Scope;
}
/** A parameter: a name, or an object pattern's names (`({ mode }) => ...`). */
export type Param = { readonly name: string } | { readonly names: readonly string[] };
/** A host function (path.join, defineConfig, ...) called with evaluated arguments. */
export type Native = (args: Val[], text: string) => Val;
export interface FnVal extends Computed { readonly fn?: FnDef; readonly native?: Native }

export interface Scope { readonly vars: Map<string, Val>; readonly parent?: Scope }

/** One module being evaluated: its tokens, where it lives, and how it reaches other modules. */
export interface Env {
  readonly toks: readonly Tok[];
  readonly src: string;
  /** Absolute path of the module file; `cwd` is where the command runs (the package directory). */
  readonly file: string;
  readonly cwd: string;
  readonly budget: Budget;
  /** Records an assumption or unknown (deduplicated by the caller). */
  note(message: string): void;
  /** `require(spec)` / a default import: the module's value, or an unknown. */
  load(spec: string, text: string): Val;
  /** `import * as ns` / named imports: the module's namespace object, or an unknown. */
  namespace(spec: string, text: string): Val;
  /** Absolute path `require.resolve(spec)` gives for a local file, or undefined. */
  resolvePath(spec: string): string | undefined;
  /**
   * Calls a function written in a module (its body runs as statements, statements.ts). An expression
   * calls a function whose body holds expressions: this is the one seam of that recursion, so that no
   * module below statements.ts imports it.
   */
  invoke(fn: FnDef, args: Val[]): Val;
  /** >0 while reading a branch that does not run: calls are not made and nothing is noted. */
  dry: number;
}

/**
 * The value of `process.env`: reading a member of it gives `undefined` (noted, calls.ts). Told apart by a
 * flag, not by its text: an unknown `process` (the static queries know no globals) reads as unknown.
 */
export const processEnv = (): Computed => ({ computed: 'process.env', processEnv: true } as Computed);
export const isProcessEnv = (v: Val): boolean =>
  isComputed(v) && (v as { processEnv?: boolean }).processEnv === true;

export const unknown = (text: string): Computed => ({
  computed: text.length > 200 ? text.slice(0, 200) + '…' : text,
});
export const isFn = (v: Val): v is FnVal => isComputed(v) && ('fn' in v || 'native' in v);
export const native = (name: string, f: Native): FnVal => ({ computed: name, native: f });

/** Looks a name up through the scope chain; `has` tells a binding to `undefined` from no binding. */
export function lookup(scope: Scope | undefined, name: string): { has: boolean; value?: Val } {
  for (let s = scope; s; s = s.parent) if (s.vars.has(name)) return { has: true, value: s.vars.get(name) };
  return { has: false };
}

/** JS truthiness of a known value (`undefined` for an unknown one). */
export function truthy(v: Val): boolean | undefined {
  if (isComputed(v)) return undefined;
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  return true;
}

/** Deep merge as Vite's `mergeConfig` does it: objects merge key by key, arrays concatenate. */
export function mergeDeep(a: Val, b: Val): Val {
  if (b === undefined || b === null) return a;
  if (isObject(a) && isObject(b)) {
    const out: Obj = Object.assign(Object.create(null), a);
    for (const [k, v] of Object.entries(b)) out[k] = k in out ? (mergeDeep(out[k], v) as Lit) : v;
    return out;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return [
      ...(Array.isArray(a) ? a : a === undefined ? [] : [a as Lit]),
      ...(Array.isArray(b) ? b : [b as Lit]),
    ];
  }
  return b;
}

/** The value as plain literals: functions and package modules become bare unknowns (bounded depth). */
export function toLit(v: Val, depth = 0): Lit {
  if (v === undefined) return null;
  if (isComputed(v)) return v.spread ? { computed: v.computed, spread: true } : { computed: v.computed };
  if (depth > 40 || typeof v !== 'object' || v === null || isRegex(v)) return v;
  if (Array.isArray(v)) return v.map((x) => toLit(x, depth + 1));
  const out: Obj = Object.create(null);
  for (const [k, x] of Object.entries(v)) out[k] = toLit(x, depth + 1);
  return out;
}

/** Strict equality of known primitives; `undefined` when either side is unknown or not a primitive. */
export function strictEquals(a: Val, b: Val): boolean | undefined {
  if (isComputed(a) || isComputed(b)) return undefined;
  if (typeof a === 'object' && a !== null) return undefined;
  if (typeof b === 'object' && b !== null) return undefined;
  return a === b;
}

/** String form used by template literals and `+`; `undefined` when it cannot be known. */
export function toText(v: Val): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return String(v);
  if (isRegex(v)) return `/${v.regex}/${v.flags}`;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return v.join(',');
  return undefined;
}

/** Limits on one evaluation (a config plus what it imports). */
export interface Budget { steps: number; depth: number }

export class BudgetError extends Error {}

/** Steps and nesting one evaluation may take: a real config needs a few thousand steps and 20 levels. */
const MAX_STEPS = 200_000;
const MAX_NESTING = 120;

export function createBudget(): Budget {
  return { steps: 0, depth: 0 };
}

/** Counts one step; throws `BudgetError` past the cap. */
export function step(b: Budget): void {
  if (++b.steps > MAX_STEPS) throw new BudgetError('the config needs more steps than projdex allows');
}

/** Characters or elements one step may build: past it a doubling string or list stops at once. */
const MAX_VALUE_SIZE = 64 * 1024;
/** Characters or elements that count as one step, so building big values spends the step budget. */
const SIZE_PER_STEP = 32;
/** Deepest value the evaluator builds (literals stop at 256 brackets already). */
const MAX_VALUE_DEPTH = 256;

/**
 * Charges what a step built (a string's length, a list's elements, counted deep up to the cap) to the
 * budget and returns it: `a = a + a` or `list.push(...list)` thirty times would otherwise build gigabytes
 * in thirty steps. Throws `BudgetError` past the per-value cap or the step budget.
 */
export function grow<T extends Val>(b: Budget, v: T): T {
  const size = sizeOf(v, MAX_VALUE_SIZE + 1);
  if (size > MAX_VALUE_SIZE) {
    throw new BudgetError(`the config builds a value of more than ${MAX_VALUE_SIZE} characters or elements`);
  }
  b.steps += Math.floor(size / SIZE_PER_STEP);
  if (b.steps > MAX_STEPS) throw new BudgetError('the config needs more steps than projdex allows');
  return v;
}

/**
 * Characters plus elements plus keys of `v`, counted deep as a copy would see it (a list holding the same
 * list twice counts it twice), stopping once past `cap`. A cycle (`path.posix` is `path`) is counted once.
 */
function sizeOf(v: Val, cap: number): number {
  let size = 0;
  const path = new Set<object>();
  const visit = (x: unknown, depth: number): void => {
    if (size > cap) return;
    if (typeof x === 'string') { size += x.length; return; }
    if (typeof x !== 'object' || x === null) return;
    // Unknowns and functions are markers (a function's closure holds its module's tokens): one each.
    if (isComputed(x as Val)) { size++; return; }
    if (path.has(x)) return;
    if (depth > MAX_VALUE_DEPTH) {
      throw new BudgetError('the config builds a value nested deeper than projdex allows');
    }
    path.add(x);
    if (Array.isArray(x)) { size += x.length; for (const y of x) visit(y, depth + 1); }
    else for (const k in x) { size++; visit((x as Record<string, unknown>)[k], depth + 1); }
    path.delete(x);
  };
  visit(v, 0);
  return size;
}

/** Runs `f` one nesting level deeper; throws `BudgetError` past the cap. */
export function deeper<T>(b: Budget, f: () => T): T {
  if (++b.depth > MAX_NESTING) {
    b.depth--;
    throw new BudgetError('the config nests deeper than projdex allows');
  }
  try { return f(); } finally { b.depth--; }
}
