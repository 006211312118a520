// tap's raw TAP (`--output-file`) read per test file, on the file tap 21 wrote here for a passing, a failing
// and a skipped file, plus a file whose process failed with no failing test.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { readTap, tap } from '../../src/core/runs/reporters/tap.ts';

const TAP = [
  "# Subtest: test/fail.test.mjs",
  "    # Subtest: adds wrong",
  "        not ok 1 - wrong sum",
  "          ---",
  "          compare: ===",
  "          at:",
  "            fileName: test/fail.test.mjs",
  "            lineNumber: 2",
  "            columnNumber: 33",
  "            typeName: Test",
  "          stack: |",
  "            Test.<anonymous> (test/fail.test.mjs:2:33)",
  "            test/fail.test.mjs:2:3",
  "          source: |",
  "            import t from 'tap';",
  "            t.test('adds wrong', (t) => { t.equal(1 + 1, 3, 'wrong sum'); t.end(); });",
  "            --------------------------------^",
  "            t.test('fine', (t) => { t.ok(true); t.end(); });",
  "          diff: |",
  "            --- expected",
  "            +++ actual",
  "            @@ -1,1 +1,1 @@",
  "            -3",
  "            +2",
  "          ...",
  "        ",
  "        1..1",
  "    not ok 1 - adds wrong # time=54.286ms",
  "      ---",
  "      at:",
  "        fileName: test/fail.test.mjs",
  "        lineNumber: 2",
  "        columnNumber: 3",
  "        isToplevel: true",
  "      source: |",
  "        import t from 'tap';",
  "        t.test('adds wrong', (t) => { t.equal(1 + 1, 3, 'wrong sum'); t.end(); });",
  "        --^",
  "        t.test('fine', (t) => { t.ok(true); t.end(); });",
  "      ...",
  "    ",
  "    # Subtest: fine",
  "        ok 1 - should be equal",
  "        1..1",
  "    ok 2 - fine # time=0.625ms",
  "    ",
  "    1..2",
  "    # time=90.369ms",
  "not ok 1 - test/fail.test.mjs # time=90.369ms",
  "  ---",
  "  stdio: inherit",
  "  cwd: /p",
  "  externalID: test/fail.test.mjs",
  "  command: /usr/bin/node",
  "  args:",
  "    - --import=file:///tmp/c27/tapinst/node_modules/@tapjs/typescript/dist/esm/import.mjs",
  "    - --import=file:///tmp/c27/tapinst/node_modules/@tapjs/mock/dist/esm/import.mjs",
  "    - --enable-source-maps",
  "    - --import=file:///tmp/c27/tapinst/node_modules/@tapjs/processinfo/dist/esm/import.mjs",
  "    - /p/test/fail.test.mjs",
  "  exitCode: 1",
  "  signal: null",
  "  ...",
  "",
  "# Subtest: test/pass.test.mjs",
  "    # Subtest: adds",
  "        ok 1 - should be equal",
  "        1..1",
  "    ok 1 - adds # time=5.343ms",
  "    ",
  "    1..1",
  "    # time=18.309ms",
  "ok 2 - test/pass.test.mjs # time=18.309ms",
  "",
  "# Subtest: test/skip.test.mjs",
  "    ok 1 - later # SKIP not yet",
  "    1..1",
  "    # time=14.353ms",
  "ok 3 - test/skip.test.mjs # time=14.353ms",
  "",
  "# No coverage generated",
  "# { total: 4, pass: 2, fail: 1, skip: 1 }",
  "# time=5737.042ms",
  ""
].join('\n');

suite('runs: tap output file', () => {
  test('the tests one level inside each file, messages from their failing assertions', () => {
    assert.deepEqual(readTap(TAP, '/p').map((o) => [o.file, o.name, o.status, o.message ?? null]), [
      ['/p/test/fail.test.mjs', 'adds wrong', 'failed', 'wrong sum'], ['/p/test/fail.test.mjs', 'fine', 'passed', null],
      ['/p/test/pass.test.mjs', 'adds', 'passed', null], ['/p/test/skip.test.mjs', 'later', 'skipped', null]]);
  });

  test('a file that failed with no failing test fails; results outside a file are ignored', () => {
    const crashed = 'ok 9 - stray\n# Subtest: test/boom.test.js\nnot ok 1 - test/boom.test.js # time=12ms\n  ---\n  exitCode: 1\n  ...\n';
    assert.deepEqual(readTap(crashed, '/p').map((o) => [o.file, o.name, o.status]), [['/p/test/boom.test.js', '(the file)', 'failed']]);
    assert.equal(tap.accepts(['tap', 'report']), false);
    assert.match(tap.refuse!({ argv: [], last: ['tap', '--output-file=x.tap'] })!, /own TAP output file/);
  });
});
