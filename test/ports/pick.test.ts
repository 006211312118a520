// pick (src/ports/common.ts): the files whose basename passes, from the basename index.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { pick } from '../../src/ports/common.ts';
import { createContext } from '../../src/scan/context.ts';
import { makeTree } from '../helpers/index.ts';

suite('pick()', () => {
  test('files by basename, vendored ones left out, from the index each context is given', (t) => {
    const root = makeTree(t, { 'Procfile': 'web: node a.js\n', 'vendor/x/Makefile': '', 'app/Makefile': '' });
    const files = ['app/Makefile', 'vendor/x/Makefile'];
    const tree = { files, dirs: ['', 'app', 'vendor', 'vendor/x'], truncated: null };
    // Two contexts over one files array share per-walk memos; the second's tree gained a basename.
    const walkMemos = new WeakMap<readonly string[], Map<string, unknown>>();
    const first = createContext(root, tree, { walkMemos });
    assert.deepEqual(pick(first, (b) => b === 'Procfile'), []);
    assert.deepEqual(pick(first, (b) => b === 'Makefile'), ['app/Makefile']);
    assert.deepEqual(pick(first, (b) => b === 'Makefile', (p) => !p.startsWith('app/')), []);
    files.push('Procfile');
    const second = createContext(root, tree, { walkMemos });
    assert.deepEqual(pick(second, (b) => b === 'Procfile'), ['Procfile']);
  });
});
