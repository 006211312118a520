// The Angular (`ng test`) and Karma rules: src/discover/js/runners/angular.ts.
// Fixtures in test/fixtures/: js-angular-karma.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover } from '../../../helpers/discover.ts';
import { fixture } from '../../../helpers/index.ts';

const EXPECTED: Record<string, Record<string, string>> = {
  'js-angular-karma': all('karma', ['src/app/app.component.spec.ts', 'src/app/util/format.spec.ts']),
};

suite('discoverJs on fixtures', () => {
  for (const [name, expected] of Object.entries(EXPECTED)) {
    test(`${name}: exact file list and frameworks`, async () => {
      const { files } = await discover(fixture(name));
      assert.deepEqual(files, expected);
    });
  }
});
