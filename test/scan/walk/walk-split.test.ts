// A walk shared with the helper thread must return exactly what the one-thread walk returns: the same
// files, directories, record and basename index in the same order, the same caps and unreadable lists.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, suite, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createHelper } from '../../../src/scan/walk/helper.ts';
import { walk, type WalkOptions, type WalkResult } from '../../../src/scan/walk/walk.ts';
import { createWalkSharing, walkShared, type WalkSharing } from '../../../src/scan/walk/walk-split.ts';
import { makeTree, seededRandom } from '../../helpers/index.ts';

/** Everything a walk returns, in a form `deepEqual` compares in order (the index as its entries). */
function shape(tree: WalkResult): unknown {
  // (The one-thread walk also returns what a merge of parts needs: not part of the result.)
  const { nameIndex, record, entries: _e, chars: _c, peak: _p, prunedOutside: _o, ...rest } = tree as WalkResult & Record<string, unknown>;
  return { ...rest, nameIndex: [...nameIndex], record: { ...record, stamps: Array.from(record.stamps) } };
}

/**
 * A random tree of about `dirs` directories, wide and deep by turns, with files, pruned installs, a
 * virtualenv marker, symlinks to a file and to a folder, and names that are not valid UTF-8.
 */
function randomTree(root: string, seed: number, dirs: number): void {
  const rnd = seededRandom(seed);
  const made = [''];
  for (let i = 0; i < dirs; i++) {
    // Mostly below a recent directory (deep runs), sometimes below any (wide fans).
    const parent = rnd() < 0.6 ? made[Math.max(0, made.length - 1 - Math.floor(rnd() * 4))]! : made[Math.floor(rnd() * made.length)]!;
    const name = rnd() < 0.03 ? 'node_modules' : rnd() < 0.02 ? `venv${i}` : `d${i}`;
    const rel = parent === '' ? name : `${parent}/${name}`;
    mkdirSync(join(root, rel), { recursive: true });
    made.push(rel);
    const files = Math.floor(rnd() * 5);
    for (let f = 0; f < files; f++) writeFileSync(join(root, rel, `f${f}.test.js`), '');
    if (name.startsWith('venv')) writeFileSync(join(root, rel, 'pyvenv.cfg'), 'home = /usr\n');
    if (rnd() < 0.01) symlinkSync('/', join(root, rel, 'to-root'));
    if (rnd() < 0.01) symlinkSync('f0.test.js', join(root, rel, 'link.test.js'));
    if (rnd() < 0.005) writeFileSync(Buffer.from(join(root, rel, 'bad-\xff-name.js'), 'latin1'), '');
  }
}

/** Every directory below `root` (relative), depth first, not entering pruned installs. */
function walkDirs(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === 'node_modules') continue;
    const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
    out.push(rel, ...walkDirs(root, rel));
  }
  return out;
}

suite('walkShared()', () => {
  // One helper thread for the suite, as a scan process has one (its cache's).
  const helper = createHelper();
  let sharing: WalkSharing;
  before(async () => {
    sharing = createWalkSharing(helper);
    helper.start();
    for (let i = 0; i < 500 && !helper.idle(); i++) await sleep(10);
  });
  after(() => helper.close());

  /** Both walks of `root`, under one clock so racy stamps are decided alike. */
  async function both(root: string, options: WalkOptions = {}, sharedBy = sharing) {
    const clock = { since: Date.now(), racyMs: 2000, granularityMs: 0 };
    const single = await walk(root, { clock, ...options });
    const shared = await walkShared(root, { clock, ...options }, true, sharedBy);
    return { single, shared, parts: sharedBy.lastParts };
  }

  test('equals the one-thread walk on random trees, and the work was shared', async (t) => {
    let sharedWalks = 0;
    for (const seed of [1, 2, 3]) {
      const root = realpathSync(makeTree(t));
      randomTree(root, seed, 3000);
      const { single, shared, parts } = await both(root);
      assert.ok(single.files.length > 1000, `seed ${seed}: ${single.files.length} files`);
      assert.deepEqual(shape(shared), shape(single), `seed ${seed}`);
      if (parts > 1) sharedWalks++;
    }
    assert.ok(sharedWalks > 0, 'at least one walk was split between the threads');
  });

  test('equals it under caps: depth, entries and path characters (walked again on one thread), stamps kept up to a count', async (t) => {
    const root = realpathSync(makeTree(t));
    randomTree(root, 4, 3000);
    for (const options of [{ maxDepth: 3 }, { maxEntries: 2000 }, { maxPathChars: 20_000 }, { stampsUpTo: 5000 }, { stampsUpTo: 100_000 }] as WalkOptions[]) {
      const { single, shared } = await both(root, options);
      assert.deepEqual(shape(shared), shape(single), JSON.stringify(options));
    }
  });

  test('equals it with unreadable directories, wherever they fall among the parts', async (t) => {
    const root = realpathSync(makeTree(t));
    randomTree(root, 5, 3000);
    // A directory whose name is not valid UTF-8 cannot be spelled, so it is never listed: counted unreadable
    // even for root. Spread through the tree, some fall in the helper's parts. Locked ones too, where the
    // permissions hold (not for root).
    const dirs = walkDirs(root);
    dirs.filter((_, i) => i % 50 === 0).forEach((dir, i) => {
      const bad = Buffer.concat([Buffer.from(join(root, dir, 'x-')), Buffer.from([0xff, 0xfe]), Buffer.from(String(i))]);
      mkdirSync(bad);
      writeFileSync(Buffer.concat([bad, Buffer.from('/a.test.js')]), '');
    });
    const locked = dirs.filter((_, i) => i % 97 === 1).map((dir) => join(root, dir));
    for (const dir of locked) chmodSync(dir, 0o000);
    let walks: Awaited<ReturnType<typeof both>>;
    try {
      walks = await both(root);
    } finally {
      // Before the tree's own clean-up (an earlier hook), which could not remove locked folders.
      for (const dir of locked) chmodSync(dir, 0o755);
    }
    const { single, shared } = walks;
    assert.ok(single.unreadable.length >= 10, `${single.unreadable.length} unreadable`); // (some sit in pruned venvs)
    assert.deepEqual(shape(shared), shape(single));
  });

  test('equals it when the helper spends its file budget and hands back all it has left', async (t) => {
    const root = realpathSync(makeTree(t));
    randomTree(root, 1, 4000);
    const small = createWalkSharing(helper, { helperFiles: 300 });
    let shared = 0;
    for (let i = 0; i < 3; i++) {
      const { single, shared: split, parts } = await both(root, {}, small);
      assert.deepEqual(shape(split), shape(single));
      if (parts > 2) shared++;
    }
    assert.ok(shared > 0, 'the walk was split (and the helper gave its stack back)');
  });

  test('a root whose last walk was past the snapshot size is walked on one thread until it is not', async (t) => {
    const root = realpathSync(makeTree(t));
    randomTree(root, 7, 2000);
    // Each walk starts with the helper idle, so a walk on one thread is the big-root rule's doing, not a
    // helper still busy (on a loaded machine a small walk can also end before the helper takes a part:
    // sharing is asked of some walk out of ten, not of each).
    const walkOnce = async (stampsUpTo: number): Promise<number> => {
      for (let i = 0; i < 200 && !helper.idle(); i++) await sleep(10);
      await walkShared(root, { stampsUpTo }, true, sharing);
      return sharing.lastParts;
    };
    const sharedSoon = async (): Promise<boolean> => {
      for (let i = 0; i < 10; i++) if (await walkOnce(Infinity) > 1) return true;
      return false;
    };
    assert.ok(await sharedSoon(), 'shared while small');
    await walkOnce(100); // past it: remembered as big
    assert.deepEqual([await walkOnce(100), await walkOnce(100), await walkOnce(100)], [1, 1, 1]);
    // Walked alone once more (still known as big), then found small: shared again.
    assert.equal(await walkOnce(Infinity), 1);
    assert.ok(await sharedSoon(), 'shared again');
  });

  test('an aborted or excluding walk is not shared', async (t) => {
    const root = realpathSync(makeTree(t));
    randomTree(root, 6, 500);
    await walkShared(root, { exclude: (d) => d.endsWith('7') }, true, sharing);
    assert.equal(sharing.lastParts, 1);
    await walkShared(root, { signal: new AbortController().signal }, true, sharing);
    assert.equal(sharing.lastParts, 1);
  });
});
