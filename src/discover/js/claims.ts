import type { ScanContext, TestFramework } from '../../rules/types.ts';

/** Files also listed by a runner other than their owner, by that owner (one claiming call's). */
export type Shared = ReadonlyMap<TestFramework, readonly string[]>;

interface ClaimLog {
  readonly steps: ReadonlyArray<{ readonly paths: readonly string[]; readonly framework: TestFramework }>;
  readonly shared: readonly Shared[];
  readonly claimed: ReadonlyMap<string, TestFramework>;
}

/**
 * The first runner to claim a file keeps it: each call hands in one run's paths from the root and gets back
 * those already claimed by another runner. Perf: a rescan over the same walk whose runs give the very same
 * arrays (units answered from their records, fullPaths' per-walk arrays), in the same order, under the same
 * runners, would claim exactly as the last scan did: its claims and answers are taken as they are (~9k files
 * of a 100k-file tree not looked up and set again). On the first call that differs, the claims made so far
 * are made again and claiming goes on as usual.
 */
export function claimer(ctx: ScanContext) {
  const slot = ctx.perWalk('js:claims', () => ({ log: undefined as ClaimLog | undefined }));
  const last = slot.log;
  const steps: Array<ClaimLog['steps'][number]> = [];
  const shared: Shared[] = [];
  let claimed: Map<string, TestFramework> | undefined;
  type Claims = Map<string, TestFramework>;
  const claimInto = (into: Claims, paths: readonly string[], framework: TestFramework): Shared => {
    const also = new Map<TestFramework, string[]>();
    for (const full of paths) {
      const owner = into.get(full);
      if (owner === undefined) into.set(full, framework);
      else if (owner !== framework) {
        const list = also.get(owner);
        if (list) list.push(full);
        else also.set(owner, [full]);
      }
    }
    return also;
  };
  const replayed = (): Map<string, TestFramework> => {
    const into = new Map<string, TestFramework>();
    for (const step of steps) claimInto(into, step.paths, step.framework);
    return into;
  };
  return {
    claim(paths: readonly string[], framework: TestFramework): Shared {
      const k = steps.length;
      const was = last?.steps[k];
      steps.push({ paths, framework });
      if (claimed === undefined && was !== undefined && was.paths === paths && was.framework === framework) {
        shared.push(last!.shared[k]!);
        return last!.shared[k]!;
      }
      if (claimed === undefined) { steps.pop(); claimed = replayed(); steps.push({ paths, framework }); }
      const also = claimInto(claimed, paths, framework);
      shared.push(also);
      return also;
    },
    /** Every file claimed, with its runner, in the order first claimed (read only). */
    done(): ReadonlyMap<string, TestFramework> {
      const whole = last !== undefined && last.steps.length === steps.length;
      const all = claimed ?? (whole ? last.claimed : replayed());
      slot.log = { steps, shared, claimed: all };
      return all;
    },
  };
}
