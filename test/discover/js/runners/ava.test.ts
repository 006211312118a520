// The AVA rule: src/discover/js/runners/ava.ts.
// Fixtures in test/fixtures/: js-ava.
import { test } from 'node:test';
import { all, discover, fixtureSuite } from '../../../helpers/discover.ts';

const EXPECTED: Record<string, Record<string, string>> = {
  'js-ava': all('ava', ['src/x.spec.mjs', 'test.js', 'test/a.js']),
};

fixtureSuite(EXPECTED);
