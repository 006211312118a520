import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { antRegex, expandBraces, fnmatchRegex, rubyGlobRegex } from '../../src/discover/patterns.ts';

suite('glob dialects', () => {
  test('fnmatch: * crosses slashes, [!x] negates, case-sensitive', () => {
    assert.ok(fnmatchRegex('test_*.py').test('test_a.py'));
    assert.ok(!fnmatchRegex('test_*.py').test('Test_a.py'));
    assert.ok(fnmatchRegex('*.egg').test('a/b.egg'));
    assert.ok(fnmatchRegex('[!_]*.py').test('a.py') && !fnmatchRegex('[!_]*.py').test('_a.py'));
  });

  test('ruby glob: ** spans dirs, hidden entries skipped, braces', () => {
    const re = rubyGlobRegex('spec/**{,/*/**}/*_spec.rb');
    assert.ok(re.test('spec/a_spec.rb') && re.test('spec/models/deep/a_spec.rb'));
    assert.ok(!re.test('spec/.hidden/a_spec.rb') && !re.test('spec/.a_spec.rb') && !re.test('other/a_spec.rb'));
    assert.deepEqual(expandBraces('a{b,c{d,e}}f'), ['abf', 'acdf', 'acef']);
  });

  test('ant: ** may be empty, * stays in a segment, %regex', () => {
    assert.ok(antRegex('**/*Test.java').test('FooTest.java') && antRegex('**/*Test.java').test('a/b/FooTest.java'));
    assert.ok(!antRegex('*Test.java').test('a/FooTest.java'));
    assert.ok(antRegex('%regex[.*IT.*]').test('a/FooIT.java'));
  });
});
