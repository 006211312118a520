// The Jasmine rule: src/discover/js/runners/jasmine.ts.
// Fixtures in test/fixtures/: js-jasmine.
import { test } from 'node:test';
import { all, discover, fixtureSuite } from '../../../helpers/discover.ts';

const EXPECTED: Record<string, Record<string, string>> = {
  'js-jasmine': all('jasmine', ['spec/aSpec.js', 'spec/unit/b.spec.mjs']),
};

fixtureSuite(EXPECTED);
