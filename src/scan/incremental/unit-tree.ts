/**
 * What a rule unit asked of the walked tree, so a rescan over another walk (a directory listed again: a file
 * added, removed or renamed) can tell whether the unit would get the same answers (unit-memo.ts). A unit that
 * sees the tree only through its view (`has`, `byName`, its reads) and its package's own files and
 * directories can be answered from its record on another walk while those answers hold; one that used the
 * whole tree (`files`, `dirs`, `names()`, `under`, `dirRuns`) only on the walk it ran on. Lists are compared
 * in order (a rule may take the first of several matches), which holds because a rescan's walk orders the
 * tree as a fresh walk does (walk.ts).
 */
import { createHash } from 'node:crypto';
import type { ScanContext, UnitMembers } from '../../rules/types.ts';

/** Lists are kept as digests: a package's files may be the whole tree's. */
export interface TreeUse {
  /** `has` answers by project-relative path (reads included: a read of a path not walked reads nothing). */
  readonly has: Map<string, boolean>;
  /** `byName` answers, digested. */
  readonly names: Map<string, string>;
  /** Its package's files and directories, digested, when it used them. */
  files?: string;
  dirs?: string;
  /** It used the whole tree, or its caller could not say it does not. */
  whole: boolean;
}

/** Makes `view` (over `ctx`) record in `use` what the unit asks of the tree. */
export function treeRecording(view: ScanContext, ctx: ScanContext, use: TreeUse): void {
  Object.assign(view, {
    usedMembers: (kind: 'files' | 'dirs', list: Iterable<string>) => {
      if (use[kind] === undefined) use[kind] = digestOf(list);
    },
    has: (file: string) => { const found = ctx.has(file); use.has.set(file, found); return found; },
    byName: (name: string) => {
      const found = ctx.byName(name);
      if (!use.names.has(name)) use.names.set(name, digestOf(found));
      return found;
    },
    names: () => { use.whole = true; return ctx.names(); },
    under: (dir: string) => { use.whole = true; return ctx.under(dir); },
    dirRuns: () => { use.whole = true; return ctx.dirRuns?.(); },
  });
  Object.defineProperty(view, 'files', { get: () => { use.whole = true; return ctx.files; } });
  Object.defineProperty(view, 'dirs', { get: () => { use.whole = true; return ctx.dirs; } });
}

/** Whether every answer in `use` is the same on `ctx`'s walk (`members`: the unit's package on it). */
export function treeHolds(ctx: ScanContext, use: TreeUse, members: UnitMembers | undefined): boolean {
  if (use.whole) return false;
  for (const [file, was] of use.has) if (ctx.has(file) !== was) return false;
  for (const [name, was] of use.names) if (digestOf(ctx.byName(name)) !== was) return false;
  if (use.files !== undefined && (!members || digestOf(members.files()) !== use.files)) return false;
  if (use.dirs !== undefined && (!members || digestOf(members.dirs()) !== use.dirs)) return false;
  return true;
}

/** A digest of a list of paths, in order. */
function digestOf(list: Iterable<string>): string {
  const items = Array.isArray(list) ? list as readonly string[] : [...list];
  return createHash('sha256').update(`${items.length}\0${items.join('\0')}`).digest('base64');
}
