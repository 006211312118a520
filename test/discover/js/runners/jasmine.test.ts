// The Jasmine rule: src/discover/js/runners/jasmine.ts.
// Fixtures in test/fixtures/: js-jasmine.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover } from '../../../helpers/discover.ts';
import { fixture } from '../../../helpers/index.ts';

const EXPECTED: Record<string, Record<string, string>> = {
  'js-jasmine': all('jasmine', ['spec/aSpec.js', 'spec/unit/b.spec.mjs']),
};

suite('discoverJs on fixtures', () => {
  for (const [name, expected] of Object.entries(EXPECTED)) {
    test(`${name}: exact file list and frameworks`, async () => {
      const { files } = await discover(fixture(name));
      assert.deepEqual(files, expected);
    });
  }
});
