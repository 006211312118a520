// The delta a rescan sends the store: from a snapshot's columns or from objects, sorted or not, the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffTests } from '../../../src/scan/incremental/rescan.ts';
import { packTests } from '../../../src/scan/process/packed.ts';
import type { FoundTest } from '../../../src/rules/types.ts';
import { seededRandom } from '../../helpers/index.ts';

/** What a store holding `before` keeps after applying `delta`, as a full save of `after` keeping `kept` would. */
function apply(before: readonly FoundTest[], delta: ReturnType<typeof diffTests>): FoundTest[] {
  const rows = new Map(before.map((t) => [t.file, t]));
  for (const file of delta.removed) rows.delete(file);
  for (const t of delta.upserts) rows.set(t.file, t);
  return [...rows.values()].sort((a, b) => (a.file < b.file ? -1 : 1));
}

test('diffTests: columns and objects, sorted (merged) or not (mapped), give a delta that makes the full save', () => {
  const rnd = seededRandom(5);
  const names = ['a/x.test.ts', 'a/y.test.ts', 'b/z.test.ts', 'b/c/w.test.ts', 'bb/v.test.ts', 'c.test.ts', 'd_test.go'];
  const some = (): FoundTest[] => names.filter(() => rnd() < 0.6).map((file) => {
    const framework: FoundTest['framework'] = rnd() < 0.5 ? 'jest' : 'vitest';
    const cases = rnd() < 0.3 ? undefined : Math.floor(rnd() * 3);
    return cases === undefined ? { file, framework } : { file, framework, cases };
  }).sort((a, b) => (a.file < b.file ? -1 : 1));
  for (let round = 0; round < 200; round++) {
    const before = some();
    const after = some();
    const kept = rnd() < 0.5 ? [] : [['b', 'a', ''][Math.floor(rnd() * 3)]!];
    const under = (file: string): boolean => kept.some((dir) => dir === '' || file.startsWith(dir + '/'));
    const expected = [...after, ...before.filter((t) => under(t.file) && !after.some((n) => n.file === t.file))]
      .sort((a, b) => (a.file < b.file ? -1 : 1));
    const shuffled = [...after].reverse();
    for (const [from, to] of [[before, after], [packTests(before), after], [before, shuffled], [[...before].reverse(), after]] as const) {
      const delta = diffTests(from, to, kept);
      assert.deepEqual(apply(before, delta), expected, JSON.stringify({ before, after, kept }));
      // Nothing sent that is stored as it is; nothing removed under a kept directory.
      for (const t of delta.upserts) assert.ok(!before.some((b) => JSON.stringify(b) === JSON.stringify(t)));
      for (const file of delta.removed) assert.ok(!under(file));
    }
  }
});
