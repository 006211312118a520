import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { compileGlobs, expandBraces, globToRegExp, isGlob, picomatchGroups, type GlobOptions } from '../../src/rules/glob.ts';

function check(pattern: string, yes: string[], no: string[], options: GlobOptions = {}): void {
  const re = globToRegExp(pattern, options);
  for (const p of yes) assert.ok(re.test(p), `${pattern} should match ${p} (${re})`);
  for (const p of no) assert.ok(!re.test(p), `${pattern} should not match ${p} (${re})`);
}

suite('glob basics', () => {
  test('* stays inside a segment', () => check('src/*.js', ['src/a.js', 'src/.js'.slice(0, 0) + 'src/b.c.js'], ['src/x/a.js', 'a.js', 'src/a.ts']));
  test('** matches zero or more segments', () => {
    check('a/**/b', ['a/b', 'a/x/b', 'a/x/y/b'], ['a/xb', 'b', 'ab']);
    check('**/b.js', ['b.js', 'x/b.js', 'x/y/b.js'], ['xb.js']);
    check('a/**', ['a', 'a/x', 'a/x/y'], ['ab', 'b/a']);
    check('**', ['a', 'a/b'], ['']);
  });
  test('** inside a segment is a single star', () => check('a**.js', ['ab.js', 'a.js'], ['a/b.js']));
  test('? matches one non-slash character', () => check('a?.js', ['ab.js'], ['a.js', 'a/.js', 'abc.js']));
  test('classes and negated classes', () => {
    check('[abc].js', ['a.js', 'c.js'], ['d.js', 'ab.js']);
    check('[a-c].js', ['b.js'], ['d.js']);
    check('[!a].js', ['b.js'], ['a.js', '/.js']);
    check('[^a].js', ['b.js'], ['a.js']);
    check('*[sS]pec.js', ['fooSpec.js', 'foo.spec.js'], ['foo.SPEC.js']);
  });
  test('braces, nested braces and ranges', () => {
    assert.deepEqual(expandBraces('a{b,c{d,e}}f'), ['abf', 'acdf', 'acef']);
    assert.deepEqual(expandBraces('x{1..3}'), ['x1', 'x2', 'x3']);
    assert.deepEqual(expandBraces('x{a}'), ['x\\{a}']);
    check('*.{js,ts}', ['a.js', 'a.ts'], ['a.jsx']);
    check('x{a}', ['x{a}'], ['xa']);
    check('[{]a', ['{a'], ['a']);
  });
  test('extglobs', () => {
    check('?(a|b).js', ['.js', 'a.js', 'b.js'], ['ab.js'], { dot: true });
    check('*(a|b).js', ['ab.js', 'abba.js', 'x'.slice(1) + 'a.js'], ['c.js']);
    check('+(a|b).js', ['a.js', 'aab.js'], ['.js']);
    check('@(a|b).js', ['a.js'], ['ab.js']);
    check('!(*.d).ts', ['a.ts'], ['a.d.ts']);
    check('a.!(js)', ['a.ts'], ['a.js']);
  });
  test('dot option', () => {
    check('**/*.js', ['a/b.js'], ['.a/b.js', 'a/.b.js']);
    check('**/*.js', ['a/b.js', '.a/b.js', 'a/.b.js'], [], { dot: true });
    check('.a/*.js', ['.a/b.js'], []);
  });
  test('nocase option', () => check('*.spec.js', ['a.SPEC.js'], [], { nocase: true }));
  test('escapes', () => check('a\\*.js', ['a*.js'], ['ab.js']));
  test('isGlob', () => {
    assert.equal(isGlob('test/unit'), false);
    assert.equal(isGlob('test/**/*.js'), true);
    assert.equal(isGlob('a\\*'), false);
  });
  test('compileGlobs applies ! excludes', () => {
    const m = compileGlobs(['src/**/*.ts', '!**/*.d.ts', '!src/skip/**']);
    assert.equal(m.match('src/a.ts'), true);
    assert.equal(m.match('src/a.d.ts'), false);
    assert.equal(m.match('src/skip/a.ts'), false);
    assert.equal(compileGlobs(['!x']).match('y'), false);
  });
});

suite('runner default patterns', () => {
  test('jest 30 testMatch (absolute paths, dot)', () => {
    const m = compileGlobs(['**/__tests__/**/*.?([mc])[jt]s?(x)', '**/?(*.)+(spec|test).?([mc])[jt]s?(x)'], { dot: true });
    for (const f of ['/r/.hidden/k.test.js', '/r/.hidden/__tests__/j.js', '/r/lib/__mocks__/o.test.js', '/r/src/__tests__/fixtures/data.js',
      '/r/src/__tests__/types.d.ts', '/r/src/test.js', '/r/src/testtest.js', '/r/tests/n.test.js', '/r/a.test.mjs', '/r/b.spec.cts', '/r/c.test.tsx']) {
      assert.ok(m.match(f), f);
    }
    for (const f of ['/r/src/g-test.js', '/r/src/latest.js', '/r/src/r.Test.js', '/r/test/m.js', '/r/e2e/p.e2e.js', '/r/src/u.test.coffee', '/r/a.test.js.map']) {
      assert.ok(!m.match(f), f);
    }
  });
  test('jest 29 testMatch excludes mjs/cjs', () => {
    const m = compileGlobs(['**/__tests__/**/*.[jt]s?(x)', '**/?(*.)+(spec|test).[tj]s?(x)'], { dot: true });
    assert.ok(m.match('/r/a.test.js'));
    assert.ok(!m.match('/r/a.test.mjs'));
    assert.ok(!m.match('/r/a.test.cjs'));
  });
  test('vitest include and v3 exclude', () => {
    const inc = compileGlobs(['**/*.{test,spec}.?(c|m)[jt]s?(x)'], { dot: true });
    for (const f of ['dist/i.test.js', '.hidden/l.test.js', 'a.spec.mts', 'b.test.cjsx'.replace('x', '')]) assert.ok(inc.match(f), f);
    for (const f of ['g.test.d.ts', 'e-test.ts', '__tests__/f.ts', 'a.test.json']) assert.ok(!inc.match(f), f);
    const exc = compileGlobs(['**/node_modules/**', '**/dist/**', '**/cypress/**', '**/.{idea,git,cache,output,temp}/**',
      '**/{karma,rollup,webpack,vite,vitest,jest,ava,babel,nyc,cypress,tsup,build,eslint,prettier}.config.*'], { dot: true });
    for (const f of ['dist/i.test.js', 'cypress/j.spec.js', '.cache/k.test.js', 'vite.config.test.ts']) assert.ok(exc.match(f), f);
    for (const f of ['build/o.test.js', '.hidden/l.test.js']) assert.ok(!exc.match(f), f);
  });
  test('playwright testMatch is case-insensitive with dot', () => {
    const m = compileGlobs(['**/*.@(spec|test).?(c|m)[jt]s?(x)'], { dot: true, nocase: true });
    for (const f of ['/r/e2e/a.spec.ts', '/r/e2e/B.SPEC.TS', '/r/.x/c.test.mjs']) assert.ok(m.match(f), f);
    assert.ok(!m.match('/r/e2e/helper.ts'));
  });
  test('cypress e2e specPattern skips dot paths', () => {
    const m = compileGlobs(['cypress/e2e/**/*.cy.{js,jsx,ts,tsx}']);
    assert.ok(m.match('cypress/e2e/a.cy.ts'));
    assert.ok(m.match('cypress/e2e/x/b.cy.jsx'));
    assert.ok(!m.match('cypress/e2e/.x/b.cy.js'));
    assert.ok(!m.match('cypress/support/e2e.ts'));
  });
  test('node --test 22/24 default', () => {
    const m = compileGlobs(['**/{test,test/**/*,test-*,*[._-]test}.{js,mjs,cjs,ts,mts,cts}']);
    for (const f of ['src/a.test.js', 'src/b-test.cjs', 'src/c_test.mjs', 'src/test-d.js', 'src/test.js', 'src/f.test.ts',
      'test/a.mjs', 'test/sub/helper.js', 'foo/test/i.js']) assert.ok(m.match(f), f);
    for (const f of ['src/test_foo.js', 'src/e.spec.js', 'lib/__tests__/g.js', 'src/latest.js', '.hidden.test.js', '.dot/z.test.js']) {
      assert.ok(!m.match(f), f);
    }
  });
  test('ava defaults with helper excludes', () => {
    const E = '{js,cjs,mjs}';
    const m = compileGlobs([`test.${E}`, `{src,source}/test.${E}`, `**/__tests__/**/*.${E}`, `**/*.spec.${E}`, `**/*.test.${E}`,
      `**/test-*.${E}`, `**/test/**/*.${E}`, `**/tests/**/*.${E}`,
      '!**/__tests__/**/__{helper,fixture}?(s)__/**/*', '!**/test?(s)/**/{helper,fixture}?(s)/**/*'], { nocase: true });
    for (const f of ['test.js', 'src/test.mjs', 'test/a.js', 'tests/x/y.cjs', 'a.SPEC.js', 'test-x.js']) assert.ok(m.match(f), f);
    for (const f of ['test/helpers/h.js', 'tests/fixture/f.js', '__tests__/__helpers__/h.js', 'test/.a.js', 'a.ts']) assert.ok(!m.match(f), f);
  });
  test('jasmine init spec_files', () => {
    const m = compileGlobs(['**/*[sS]pec.?(m)js']);
    assert.ok(m.match('fooSpec.js'));
    assert.ok(m.match('a/foo.spec.mjs'));
    assert.ok(!m.match('helpers/h.js'));
  });
});

// Shapes found on real repositories (Jest and Vitest configs writing `*.(spec|test).ts`): micromatch reads a
// bare group as an extglob group.
suite('picomatchGroups()', () => {
  test('rewrites bare groups only', () => {
    assert.equal(picomatchGroups('**/*.(spec|test).ts?(x)'), '**/*.@(spec|test).ts?(x)');
    assert.equal(picomatchGroups('+([a-z]).(a|b)'), '+([a-z]).@(a|b)');
    assert.equal(picomatchGroups('[(]x\\(y'), '[(]x\\(y');
    assert.equal(picomatchGroups('!(a)*(b)@(c)'), '!(a)*(b)@(c)');
    const m = compileGlobs([picomatchGroups('src/**/*.(spec|test).js')]);
    assert.equal(m.match('src/x/a.spec.js'), true);
    assert.equal(m.match('src/x/a.(spec|test).js'), false);
  });
});
