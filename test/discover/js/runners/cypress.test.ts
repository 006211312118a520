// The Cypress rule: src/discover/js/runners/cypress.ts.
// Fixtures in test/fixtures/: js-cypress.
import { test } from 'node:test';
import { all, discover, fixtureSuite } from '../../../helpers/discover.ts';

const EXPECTED: Record<string, Record<string, string>> = {
  'js-cypress': all('cypress', ['cypress/e2e/login.cy.ts', 'cypress/e2e/nested/x.cy.js']),
};

fixtureSuite(EXPECTED);
