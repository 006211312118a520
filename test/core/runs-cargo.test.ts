// cargo's human output read per test, on output the real cargo printed here (1.95 from rustup, 1.65 from
// Debian; backtraces shortened), with both streams on one pipe as the step runs it.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { cargo, cargoReader } from '../../src/core/runs/reporters/cargo.ts';
import { planRun } from '../../src/core/runs/plan.ts';
import { makeTree } from '../helpers/index.ts';

const CRATE: Record<string, string> = {
  'Cargo.toml': '[package]\nname = "fx"\nversion = "0.1.0"\nedition = "2021"\n',
  'src/lib.rs': 'pub mod util;\nmod skipped;\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn root_ok() {}\n}\n',
  'src/util/mod.rs': '#[cfg(test)]\nmod tests {\n    #[test]\n    fn doubles() {}\n    #[test]\n    fn fine() {}\n}\n',
  'src/skipped.rs': '#[cfg(test)]\nmod tests {\n    #[test]\n    #[ignore]\n    fn later() {}\n}\n',
  'tests/pass.rs': '#[test]\nfn adds() {}\n',
  'tests/fail.rs': '#[test]\nfn wrong() {}\n#[test]\nfn right() {}\n',
  'tests/multi/main.rs': 'mod inner;\n',
  'tests/multi/inner.rs': '#[test]\nfn inner_ok() {}\n',
};
const KNOWN = ['src/lib.rs', 'src/util/mod.rs', 'src/skipped.rs', 'tests/pass.rs', 'tests/fail.rs', 'tests/multi/main.rs', 'tests/multi/inner.rs'];

const OUTPUT_1_95 = `   Compiling fx v0.1.0 (/tmp/c27/fx)
    Finished \`test\` profile [unoptimized + debuginfo] target(s) in 0.50s
     Running unittests src/lib.rs (target/debug/deps/fx-4a99a53287a4b62f)

running 4 tests
test skipped::tests::later ... ignored
test tests::root_ok ... ok
test util::tests::fine ... ok
test util::tests::doubles ... FAILED

failures:

---- util::tests::doubles stdout ----

thread 'util::tests::doubles' (32357) panicked at src/util/mod.rs:5:20:
assertion \`left == right\` failed: wrong double
  left: 4
 right: 5
stack backtrace:
   0: __rustc::rust_begin_unwind
note: Some details are omitted, run with \`RUST_BACKTRACE=full\` for a verbose backtrace.


failures:
    util::tests::doubles

test result: FAILED. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.11s

error: test failed, to rerun pass \`--lib\`
     Running tests/fail.rs (target/debug/deps/fail-5b5ab23b4b420b17)

running 2 tests
test right ... ok
test wrong ... FAILED

failures:

---- wrong stdout ----

thread 'wrong' (32361) panicked at tests/fail.rs:2:14:
assertion \`left == right\` failed: wrong sum
  left: 4
 right: 5


failures:
    wrong

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.10s

error: test failed, to rerun pass \`--test fail\`
     Running tests/multi/main.rs (target/debug/deps/multi-0b868439cd818ea5)

running 1 test
test inner::inner_ok ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

     Running tests/pass.rs (target/debug/deps/pass-9f2773ccadf75fd4)

running 1 test
test adds ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

   Doc-tests fx

running 1 test
test src/lib.rs - sum (line 7) ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.08s

error: 2 targets failed:
    \`--lib\`
    \`--test fail\`
`;

// Debian's cargo 1.65: the same sections; panics print the message inside quotes.
const FAILURE_1_65 = `     Running unittests src/lib.rs (target/debug/deps/fx-17af35626aecf3a4)

running 2 tests
test util::tests::doubles ... FAILED
test util::tests::fine ... ok

failures:

---- util::tests::doubles stdout ----
thread 'util::tests::doubles' panicked at 'assertion failed: \`(left == right)\`
  left: \`4\`,
 right: \`5\`: wrong double', src/util/mod.rs:5:20
note: run with \`RUST_BACKTRACE=1\` environment variable to display a backtrace


failures:
    util::tests::doubles

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
`;

function read(root: string, known: string[], output: string) {
  const reader = cargoReader({ cwd: root, reportDir: '/nowhere', known: known.map((k) => `${root}/${k}`), words: ['cargo', 'test'] });
  const shown = output.split('\n').map((line) => reader.line(line));
  assert.deepEqual(shown, output.split('\n'), 'every line is shown as cargo printed it');
  const outcomes = reader.outcomes().map((o) => [o.file.slice(root.length + 1), o.name, o.status, ...(o.message ? [o.message] : [])]);
  return { outcomes, notes: reader.notes!() };
}

suite('runs: cargo test output', () => {
  test('each section\'s tests land on their module file, the target root, or the file a doc test names', (t) => {
    const root = makeTree(t, CRATE);
    const { outcomes, notes } = read(root, KNOWN, OUTPUT_1_95);
    assert.deepEqual(outcomes.map((o) => o.slice(0, 3)), [
      ['src/skipped.rs', 'skipped::tests::later', 'skipped'], ['src/lib.rs', 'tests::root_ok', 'passed'],
      ['src/util/mod.rs', 'util::tests::fine', 'passed'], ['src/util/mod.rs', 'util::tests::doubles', 'failed'],
      ['tests/fail.rs', 'right', 'passed'], ['tests/fail.rs', 'wrong', 'failed'], ['tests/multi/inner.rs', 'inner::inner_ok', 'passed'],
      ['tests/pass.rs', 'adds', 'passed'], ['src/lib.rs', 'src/lib.rs - sum (line 7)', 'passed']]);
    assert.match(String(outcomes[3]![3]), /^thread 'util::tests::doubles' .*\n.*wrong double/);
    assert.doesNotMatch(String(outcomes[3]![3]), /failures:|test result/);
    assert.match(String(outcomes[5]![3]), /wrong sum/);
    assert.deepEqual(notes, []);
  });

  test('cargo 1.65 output reads the same', (t) => {
    const root = makeTree(t, CRATE);
    const { outcomes } = read(root, KNOWN, FAILURE_1_65);
    assert.deepEqual(outcomes.map((o) => o.slice(0, 3)), [['src/util/mod.rs', 'util::tests::doubles', 'failed'], ['src/util/mod.rs', 'util::tests::fine', 'passed']]);
    assert.match(String(outcomes[0]![3]), /wrong double', src\/util\/mod\.rs:5:20/);
  });

  test('a test on a file the scan does not list, or before any banner, is named in a note', (t) => {
    const root = makeTree(t, CRATE);
    const { outcomes, notes } = read(root, ['src/lib.rs', 'tests/pass.rs'], `test stray ... ok\n${OUTPUT_1_95}`);
    assert.deepEqual([...new Set(outcomes.map((o) => o[0]))], ['src/lib.rs', 'tests/pass.rs']);
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /^7 tests could not be placed on a test file the scan lists, so no file carries their result: stray \(tests printed before any `Running` banner\), skipped::tests::later, util::tests::fine, util::tests::doubles, right, and 2 more$/);
  });

  test('after the command\'s own `--`, a failure notes that cargo stopped at the first failing binary', (t) => {
    const root = makeTree(t, CRATE);
    const reader = cargoReader({ cwd: root, reportDir: '/nowhere', known: KNOWN.map((k) => `${root}/${k}`), words: ['cargo', 'test', '--', '--nocapture'] });
    for (const line of FAILURE_1_65.split('\n')) reader.line(line);
    assert.equal(reader.outcomes().length, 2);
    const notes = reader.notes!();
    assert.match(notes[0]!, /could not add `--no-fail-fast`: cargo stops after the first test binary that fails/);
    assert.match(notes[1]!, /with `--nocapture` a test's own output can break its result line/);
  });

  // Cargo names a member's files relative to the member (real output of a two-member workspace run from its root).
  test('in a workspace, the binary\'s crate name tells apart members that hold the same path', (t) => {
    const root = makeTree(t, {
      'Cargo.toml': '[workspace]\nmembers = ["a", "b-c"]\nresolver = "2"\n',
      'a/Cargo.toml': '[package]\nname = "a"\nversion = "0.1.0"\nedition = "2021"\n',
      'a/src/lib.rs': '#[cfg(test)]\nmod tests {\n    #[test]\n    fn ok() {}\n}\n',
      'b-c/Cargo.toml': '[package]\nname = "b-c"\nversion = "0.1.0"\nedition = "2021"\n',
      'b-c/src/lib.rs': '#[cfg(test)]\nmod tests {\n    #[test]\n    fn bad() { panic!("boom") }\n}\n',
    });
    const output = `     Running unittests src/lib.rs (target/debug/deps/a-3110576fc3c3c96d)

running 1 test
test tests::ok ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

     Running unittests src/lib.rs (target/debug/deps/b_c-3f8617d4fbcf6f32)

running 1 test
test tests::bad ... FAILED

failures:

---- tests::bad stdout ----

thread 'tests::bad' (7388) panicked at b-c/src/lib.rs:4:16:
boom
note: run with \`RUST_BACKTRACE=1\` environment variable to display a backtrace


failures:
    tests::bad

test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

error: test failed, to rerun pass \`-p b-c --lib\`
   Doc-tests a

running 0 tests
`;
    const { outcomes, notes } = read(root, ['a/src/lib.rs', 'b-c/src/lib.rs'], output);
    assert.deepEqual(outcomes.map((o) => o.slice(0, 3)), [['a/src/lib.rs', 'tests::ok', 'passed'], ['b-c/src/lib.rs', 'tests::bad', 'failed']]);
    assert.match(String(outcomes[1]![3]), /boom/);
    assert.deepEqual(notes, []);
  });

  test('flags: --no-fail-fast; integration files alone as `--test NAME`; refusals', (t) => {
    const root = makeTree(t, CRATE);
    const plan = (files?: string[]) => planRun(root, [{ package: '', command: 'cargo test', runner: 'cargo', config: null, notes: [] }],
      KNOWN.map((file_path) => ({ file_path, framework: 'cargo' })), files ? { files } : {});
    const alone = plan(['tests/pass.rs', 'tests/multi/main.rs']);
    assert.ok('steps' in alone);
    const ctx = { cwd: root, reportDir: '/r', known: [], words: [], files: alone.steps[0]!.files! };
    assert.deepEqual(cargo.args(ctx), ['--no-fail-fast', '--test', 'pass', '--test', 'multi']);
    const whole = plan(['tests/pass.rs', 'src/util/mod.rs']);
    assert.ok('steps' in whole);
    assert.equal(whole.steps[0]!.files, undefined);
    assert.match(whole.steps[0]!.notes.join(), /cargo runs test targets, not files.*the whole command ran/);
    assert.equal(cargo.refuse!({ argv: [], last: ['cargo', 'test', '--', '--test-threads=1'] }), undefined);
    assert.deepEqual(cargo.args({ ...ctx, words: ['cargo', 'test', '--', '--test-threads=1'] }), [], 'nothing can follow the binaries\' arguments');
    assert.match(cargo.wholeFor!([`${root}/tests/pass.rs`], ['cargo', 'test', '--', '--test-threads=1'])!, /after `--`.*whole command ran/);
    assert.match(cargo.refuse!({ argv: [], last: ['cargo', 'test', '-q'] })!, /--quiet/);
    assert.equal(cargo.refuse!({ argv: [], last: ['cargo', 'test', '--workspace'] }), undefined);
    assert.equal(cargo.accepts(['cargo', 'nextest', 'run']), false);
  });
});
