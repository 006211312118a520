/**
 * tap (node-tap 18 and later, https://node-tap.org/cli/): `--output-file=FILE` writes the raw TAP of the
 * whole run beside the usual terminal report. Each test file is a top-level subtest
 * (`# Subtest: test/a.test.js` … `not ok 1 - test/a.test.js # time=35.8ms`); its own tests are the results
 * one level in (four spaces), whose failing assertions, deeper in, come before them and give the message.
 * A file passed, failed or (every test of it skipped or todo) was skipped.
 */
import { promises as fsp } from 'node:fs';
import { resolve } from 'node:path';
import { bin, cleanMessage, checkReport, type Reporter, type ReportContext, type TestOutcome } from './reporter.ts';

const report = (ctx: ReportContext): string => `${ctx.reportDir}/tap.tap`;
const RESULT = /^( *)(not ok|ok) \d+(?: - (.*?))?(?: # (SKIP|TODO|time=([\d.]+)ms)\b.*)?$/i;
/** Failing assertions kept per test for its message. */
const KEPT = 5;

export const tap: Reporter = {
  runner: 'tap',
  accepts: (words) => bin(words[0]) === 'tap' && !['report', 'replay', 'list', 'plugin', 'build', 'version'].includes(words[1] ?? ''),
  refuse: (invocation) => (invocation.last.some((w) => w.startsWith('--output-file') || w.startsWith('--output-dir'))
    ? 'the command writes its own TAP output file' : undefined),
  args: (ctx) => [`--output-file=${report(ctx)}`, ...(ctx.files ?? [])],
  async read(ctx) {
    await checkReport(report(ctx), 'tap wrote no TAP output file');
    return readTap(await fsp.readFile(report(ctx), 'utf8'), ctx.cwd);
  },
};

/** Results of the tests one level inside each top-level (file) subtest. */
export function readTap(text: string, cwd: string): TestOutcome[] {
  const outcomes: TestOutcome[] = [];
  let file: string | undefined;
  let fileTests: TestOutcome[] = [];
  let failing: string[] = [];
  for (const line of text.split('\n')) {
    const subtest = /^# Subtest: (.+)$/.exec(line);
    if (subtest) { file = resolve(cwd, subtest[1]!); fileTests = []; failing = []; continue; }
    const m = RESULT.exec(line);
    if (!m || !file) continue;
    const [, indent, verdict, name = '', directive, ms] = m;
    const level = indent!.length;
    if (level >= 8 && verdict === 'not ok' && failing.length < KEPT) failing.push(name);
    if (level === 4) {
      const skipped = /^(SKIP|TODO)$/i.test(directive ?? '');
      const status = skipped ? 'skipped' : verdict === 'ok' ? 'passed' : 'failed';
      const test: TestOutcome = { file, name, status, ms: ms ? Number(ms) : null,
        ...(status === 'failed' ? { message: cleanMessage(failing.join('\n') || name) } : {}) };
      fileTests.push(test);
      outcomes.push(test);
      failing = [];
    } else if (level === 0) {
      // The file's own verdict: a file that failed with no failing test (it crashed) still fails.
      if (verdict === 'not ok' && !fileTests.some((t) => t.status === 'failed')) {
        outcomes.push({ file, name: '(the file)', status: 'failed', ms: null, message: 'the test file failed (its process exited with an error)' });
      }
      file = undefined;
    }
  }
  return outcomes;
}
