/**
 * What the discovery rules see of a scan's context, so a rescan can tell which rules' inputs moved: their
 * own reads (configs, manifests) apart from the reads `withCases` makes to count a test file's cases, and
 * the counting functions they declared `rowPerFile` (see rescan.ts `patchCounts`).
 */
import type { ScanSnapshotData } from './incremental/snapshot.ts';
import type { ScanContext } from '../rules/types.ts';
import type { Counter } from '../rules/with-cases.ts';

/**
 * The context the rules get: its own reads recorded in `ruleReads` (`read`, `readOnce`, `readJson`), the
 * reads `withCases` makes to count cases not, and `withCases`'s counting functions collected in `counters`.
 */
export function rulesView(ctx: ScanContext, ruleReads: Set<string>, counters: Map<string, Counter | null>): ScanContext {
  const view: ScanContext = Object.create(ctx);
  view.read = (file) => (ruleReads.add(file), ctx.read(file));
  view.readOnce = (file) => (ruleReads.add(file), ctx.readOnce(file));
  view.readJson = (file) => (ruleReads.add(file), ctx.readJson(file));
  // A rule unit answered from its record read these as its input, as if it had run.
  if (ctx.vouch) {
    const vouch = ctx.vouch;
    Object.assign(view, { vouch: (files: readonly string[], stamps: ArrayLike<number>) => {
      if (!vouch(files, stamps)) return false;
      for (const file of files) ruleReads.add(file);
      return true;
    } });
  }
  Object.assign(view, { counting: { ...ctx.counting, read: ctx.readOnce, counters } });
  return view;
}

/** The files the snapshot's rules read as their own input (`paths`: the snapshot's read paths, split). */
export function ruleReadsOf(previous: ScanSnapshotData, paths: readonly string[]): Set<string> {
  return new Set(paths.filter((_, i) => previous.reads.rule![i] === 1));
}
