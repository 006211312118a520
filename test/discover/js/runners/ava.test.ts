// The AVA rule: src/discover/js/runners/ava.ts.
// Fixtures in test/fixtures/: js-ava.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover } from '../../../helpers/discover.ts';
import { fixture } from '../../../helpers/index.ts';

const EXPECTED: Record<string, Record<string, string>> = {
  'js-ava': all('ava', ['src/x.spec.mjs', 'test.js', 'test/a.js']),
};

suite('discoverJs on fixtures', () => {
  for (const [name, expected] of Object.entries(EXPECTED)) {
    test(`${name}: exact file list and frameworks`, async () => {
      const { files } = await discover(fixture(name));
      assert.deepEqual(files, expected);
    });
  }
});
