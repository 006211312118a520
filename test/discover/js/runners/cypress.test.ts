// The Cypress rule: src/discover/js/runners/cypress.ts.
// Fixtures in test/fixtures/: js-cypress.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover } from '../../../helpers/discover.ts';
import { fixture } from '../../../helpers/index.ts';

const EXPECTED: Record<string, Record<string, string>> = {
  'js-cypress': all('cypress', ['cypress/e2e/login.cy.ts', 'cypress/e2e/nested/x.cy.js']),
};

suite('discoverJs on fixtures', () => {
  for (const [name, expected] of Object.entries(EXPECTED)) {
    test(`${name}: exact file list and frameworks`, async () => {
      const { files } = await discover(fixture(name));
      assert.deepEqual(files, expected);
    });
  }
});
