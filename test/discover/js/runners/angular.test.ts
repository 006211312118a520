// The Angular (`ng test`) and Karma rules: src/discover/js/runners/angular.ts.
// Fixtures in test/fixtures/: js-angular-karma.
import { test } from 'node:test';
import { all, discover, fixtureSuite } from '../../../helpers/discover.ts';

const EXPECTED: Record<string, Record<string, string>> = {
  'js-angular-karma': all('karma', ['src/app/app.component.spec.ts', 'src/app/util/format.spec.ts']),
};

fixtureSuite(EXPECTED);
