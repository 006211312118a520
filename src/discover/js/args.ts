import { compileGlobs, isGlob } from '../../rules/glob.ts';
import type { Invocation, Pkg } from './types.ts';
import { joinPath } from '../../rules/paths.ts';

/** Positional (non-flag) arguments of an invocation, with flags that take a value skipped. */
export function positionals(inv: Invocation, valueFlags: ReadonlySet<string>): Array<{ arg: string; quoted: boolean }> {
  const out: Array<{ arg: string; quoted: boolean }> = [];
  for (let i = 0; i < inv.args.length; i++) {
    const a = inv.args[i]!;
    if (a === '--') continue;
    if (a.startsWith('-')) { if (valueFlags.has(a)) i++; continue; }
    out.push({ arg: a, quoted: inv.quoted[i] ?? false });
  }
  return out;
}

/** Every value of a flag (`--spec x`, `--spec=x`, `-c x`), in order. */
export function flagValues(inv: Invocation, ...names: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < inv.args.length; i++) {
    const a = inv.args[i]!;
    for (const n of names) {
      if (a === n && i + 1 < inv.args.length) out.push(inv.args[++i]!);
      else if (a.startsWith(n + '=')) out.push(a.slice(n.length + 1));
    }
  }
  return out;
}

/** Whether a boolean flag is on (`--recursive`, `--typecheck`, `--typecheck=true`). */
export function hasFlag(inv: Invocation, ...names: string[]): boolean {
  return inv.args.some((a) => names.includes(a) || names.some((n) => a === `${n}=true`));
}

/**
 * What `sh` hands the runner for an unquoted word: a glob with matches becomes the matching paths
 * (files and directories, no dotfiles, and `**` is just `*` because `sh` has no globstar); a glob
 * without matches and any quoted word pass through unchanged.
 */
export function shellExpand(pkg: Pkg, arg: string, quoted: boolean): string[] {
  if (quoted || !isGlob(arg)) return [arg];
  const clean = arg.replace(/^\.\//, '');
  const matcher = compileGlobs([clean.replace(/\*\*+/g, '*')]);
  const hits = [...pkg.files, ...pkg.dirs].filter((p) => matcher.match(p));
  return hits.length > 0 ? hits.sort() : [arg];
}

/** Normalises a cwd-relative argument to a package-relative path. */
export function rel(arg: string): string {
  return joinPath(arg);
}
