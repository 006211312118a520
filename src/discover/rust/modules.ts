import type { ScanContext } from '../../rules/types.ts';
import { basename, dirname, joinPath } from '../../rules/paths.ts';

/** What `cfg(...)` sees in a `cargo test` run on linux/x86_64: the enabled features of the package. */
export interface CfgEnv {
  readonly features: ReadonlySet<string>;
  /** Filled with the features (off in this run) whose `cfg` dropped a module or a file's contents. */
  readonly offFeatures?: Set<string>;
}

/** One source file of a crate, as rustc reaches it. */
export interface CrateFile {
  readonly file: string;
  /** Test attributes outside comments and outside cfg'd-off inline modules. */
  readonly cases: number;
}

// Attributes (one nesting level of brackets), `mod x;` / `mod x {`, and braces/semicolons that end items.
const TOKENS = /#!?\[(?:[^[\]]|\[[^\]]{0,500}\]){0,2000}\]|\b(?:pub(?:\s*\([^)]*\))?\s+)?mod\s+(?:r#)?(\w+)\s*([;{])|[{};]/g;
const TEST_ATTR = /^#\[\s*(?:(?:\w+::)*test\s*(?:\]|\()|rstest\s*(?:\]|\()|test_case\s*\()/;
// A module nesting guard: a hostile tree of `mod` files cannot make the walk run away.
const MAX_FILES = 5000;

/**
 * Every file rustc compiles for the crate rooted at `root`, following `mod x;` into `x.rs` / `x/mod.rs`
 * (below `dir/stem/` for a non-mod.rs, non-root file), `#[path = "..."]` relative to the declaring file's
 * directory, inline `mod a { mod b; }` into `a/b.rs`. A `#[cfg(...)]` that is false on a linux test
 * build (a feature that is off, `windows`, a custom cfg) drops the module; `#![cfg(...)]` at a file's
 * top drops the file's contents.
 */
export async function crateFiles(ctx: ScanContext, root: string, env: CfgEnv): Promise<CrateFile[]> {
  const out: CrateFile[] = [];
  const seen = new Set<string>();
  const visit = async (file: string, ownsDir: boolean): Promise<void> => {
    if (seen.has(file) || seen.size >= MAX_FILES) return;
    seen.add(file);
    const raw = await ctx.readOnce(file);
    if (raw === undefined) return;
    const text = stripCommentsAndStrings(raw);
    const here = ownsDir ? dirname(file) : joinPath(dirname(file), basename(file).replace(/\.rs$/, ''));
    const children: Array<[string, boolean]> = [];
    let pending: string[] = [];
    let depth = 0;
    let offFrom = -1; // depth at which a cfg'd-off inline module began
    const inline: Array<{ name: string; depth: number }> = [];
    let cases = 0;
    for (const m of text.matchAll(TOKENS)) {
      const tok = m[0];
      if (tok.startsWith('#!')) {
        if (depth === 0 && !cfgHolds(tok, env)) { noteOff([tok], env); out.push({ file, cases: 0 }); return; }
        continue;
      }
      if (tok.startsWith('#')) {
        if (offFrom === -1 && TEST_ATTR.test(tok)) cases++;
        pending.push(tok);
        continue;
      }
      const on = pending.every((a) => cfgHolds(a, env));
      if (m[1] !== undefined && !on && offFrom === -1) noteOff(pending, env);
      if (m[1] !== undefined) {
        if (m[2] === '{') {
          depth++;
          inline.push({ name: m[1], depth });
          if (!on && offFrom === -1) offFrom = depth;
        } else if (on && offFrom === -1) {
          const path = pending.map((a) => /^#\[\s*path\s*=\s*"([^"]+)"\s*\]$/.exec(a)?.[1]).find((p) => p !== undefined);
          const inDir = joinPath(here, ...inline.map((x) => x.name));
          if (path !== undefined) children.push([joinPath(inline.length ? inDir : dirname(file), path), true]);
          else {
            const flat = joinPath(inDir, m[1] + '.rs');
            children.push(ctx.has(flat) ? [flat, false] : [joinPath(inDir, m[1], 'mod.rs'), true]);
          }
        }
      } else if (tok === '{') depth++;
      else if (tok === '}') {
        if (offFrom === depth) offFrom = -1;
        while (inline.length && inline[inline.length - 1]!.depth >= depth) inline.pop();
        depth--;
      }
      pending = [];
    }
    out.push({ file, cases });
    for (const [child, owns] of children) if (ctx.has(child)) await visit(child, owns);
  };
  await visit(root, true);
  return out;
}

/** Records the features, off in this run, that the failing `cfg` attributes name. */
function noteOff(attrs: readonly string[], env: CfgEnv): void {
  if (!env.offFeatures) return;
  for (const attr of attrs) {
    if (cfgHolds(attr, env)) continue;
    for (const m of attr.matchAll(/\bfeature\s*=\s*"([^"]*)"/g)) if (!env.features.has(m[1]!)) env.offFeatures.add(m[1]!);
  }
}

/**
 * Blanks comments, string and char literals (keeping newlines) so braces and `mod` in them are not read.
 * One linear pass (an unclosed `/*` or quote cannot make it rescan), so a hostile file costs O(n).
 * Strings that may be a `#[path]` value (no brace, backslash, `;` or newline) are kept.
 */
export function stripCommentsAndStrings(text: string): string {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i]!;
    const next = text[i + 1];
    if (ch === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? n : end;
    } else if (ch === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? n : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (ch === '"' || (ch === 'r' && (next === '"' || next === '#') && !/\w/.test(text[i - 1] ?? ''))) {
      let hashes = '';
      let j = i;
      if (ch === 'r') { j++; while (text[j] === '#') { hashes += '#'; j++; } if (text[j] !== '"') { out += ch; i++; continue; } }
      const raw = ch === 'r';
      let k = j + 1;
      for (; k < n; k++) {
        if (!raw && text[k] === '\\') { k++; continue; }
        if (text[k] === '"' && text.startsWith(hashes, k + 1)) break;
      }
      const lit = text.slice(i, Math.min(n, k + 1 + hashes.length));
      out += /^"[^{}\n\\;]*"$/.test(lit) ? lit : '""' + lit.replace(/[^\n]/g, '').slice(0);
      i = Math.min(n, k + 1 + hashes.length);
    } else if (ch === "'" && /^'(?:[^\\'\n]|\\.[^'\n]{0,8})'/.test(text.slice(i, i + 13))) {
      // A char literal (`'{'`, `'\''`, `'\u{7b}'`); a lifetime (`'a`) has no closing quote and stays.
      out += "' '";
      i += /^'(?:[^\\'\n]|\\.[^'\n]{0,8})'/.exec(text.slice(i, i + 13))![0].length;
    } else { out += ch; i++; }
  }
  return out;
}

/**
 * Whether an attribute's cfg holds: `#[cfg(PRED)]` / `#![cfg(PRED)]` with all/any/not, `feature = "x"`,
 * `test`, `debug_assertions`, `unix`, `target_os = "linux"` and friends. Any other attribute holds.
 */
export function cfgHolds(attr: string, env: CfgEnv): boolean {
  const m = /^#!?\[\s*cfg\s*\(([\s\S]*)\)\s*\]$/.exec(attr);
  if (!m) return true;
  let at = 0;
  const src = m[1]!;
  const skip = (): void => { while (/\s/.test(src[at] ?? '')) at++; };
  const pred = (): boolean => {
    skip();
    const name = /^[\w:]+/.exec(src.slice(at))?.[0] ?? '';
    at += name.length;
    skip();
    if (src[at] === '(') {
      at++;
      const vals: boolean[] = [];
      for (skip(); src[at] !== ')' && at < src.length; skip()) {
        const before = at;
        vals.push(pred());
        skip();
        if (src[at] === ',') at++;
        else if (at === before) at++; // Not a predicate: step over it, so bad input cannot loop.
      }
      at++;
      return name === 'all' ? vals.every(Boolean) : name === 'any' ? vals.some(Boolean) : name === 'not' ? !vals[0] : false;
    }
    if (src[at] === '=') {
      at++;
      skip();
      const value = /^"([^"]*)"/.exec(src.slice(at))?.[1] ?? '';
      at += value.length + 2;
      if (name === 'feature') return env.features.has(value);
      return ({ target_os: 'linux', target_family: 'unix', target_arch: 'x86_64', target_pointer_width: '64', target_endian: 'little', target_env: 'gnu' } as Record<string, string>)[name] === value;
    }
    return ['test', 'debug_assertions', 'unix'].includes(name);
  };
  return pred();
}
