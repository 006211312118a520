import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { compileGlobs, picomatchGroups } from '../../../src/rules/glob.ts';

// Shapes found on real repositories where projdex's list differed from the runner's own: the tests of each
// shape are in its runner's file (runners/<runner>.test.ts); here is the glob rewrite those shapes needed.

suite('JS discovery on shapes from real repositories', () => {
  test('picomatchGroups rewrites bare groups only', () => {
    assert.equal(picomatchGroups('**/*.(spec|test).ts?(x)'), '**/*.@(spec|test).ts?(x)');
    assert.equal(picomatchGroups('+([a-z]).(a|b)'), '+([a-z]).@(a|b)');
    assert.equal(picomatchGroups('[(]x\\(y'), '[(]x\\(y');
    assert.equal(picomatchGroups('!(a)*(b)@(c)'), '!(a)*(b)@(c)');
    const m = compileGlobs([picomatchGroups('src/**/*.(spec|test).js')]);
    assert.equal(m.match('src/x/a.spec.js'), true);
    assert.equal(m.match('src/x/a.(spec|test).js'), false);
  });
});
