/**
 * The values the static evaluator gives, to whole-module reads (modules.ts) and queries (literal.ts). A `Lit`
 * is what JSON would hold plus regex literals and `Computed`, a value that could not be known, carrying
 * its source text so a caller can say why it fell back to a default.
 */

import type { Tok } from './tokens.ts';

/** A value that could not be read statically; `text` is its source, `spread` marks `...x` in arrays. */
export interface Computed { readonly computed: string; readonly spread?: boolean }
export interface RegexLit { readonly regex: string; readonly flags: string }
export type Lit = string | number | boolean | null | RegexLit | Computed | Lit[] | { [key: string]: Lit };

export const isComputed = (v: unknown): v is Computed =>
  typeof v === 'object' && v !== null && 'computed' in v;
export const isRegex = (v: unknown): v is RegexLit => typeof v === 'object' && v !== null && 'regex' in v;
export const isObject = (v: unknown): v is { [key: string]: Lit } =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !isComputed(v) && !isRegex(v);

/** The value a string, number or regex token stands for; undefined for any other token. */
export function tokenLiteral(tok: Tok): string | number | RegexLit | undefined {
  if (tok.kind === 'str') return tok.value!;
  if (tok.kind === 'num') return Number(tok.t.replace(/_/g, ''));
  if (tok.kind !== 'regex') return undefined;
  const [regex, flags] = tok.value!.split('\0');
  return { regex: regex!, flags: flags! };
}

/**
 * Looks a dotted key up in a read config: `found` is false when absent, `value` may be `Computed`.
 * A computed spread or merge in any object on the way makes an absent key "maybe present": reported computed.
 */
export function getKey(root: Lit | undefined, path: string): { found: boolean; value?: Lit } {
  let cur: Lit | undefined = root;
  for (const part of path.split('.')) {
    if (!isObject(cur)) return isComputed(cur) ? { found: true, value: cur } : { found: false };
    if (part in cur) { cur = cur[part]; continue; }
    const spread = Object.keys(cur).find((k) => k.startsWith('...'));
    return spread ? { found: true, value: cur[spread]! } : { found: false };
  }
  return { found: true, value: cur };
}
