/**
 * Mocha (https://mochajs.org/#json): the `json` reporter writes `{ tests, passes, failures, pending }` to
 * the file `--reporter-option output=` names (Mocha 9.1 and later); a test's status is the list that holds
 * it. With that reporter the terminal shows only what the tests print; a reporter the command names is
 * replaced (Mocha takes the last `--reporter`).
 */
import { promises as fsp } from 'node:fs';
import { bin, cleanMessage, checkReport, type Reporter, type ReportContext, type TestOutcome } from './reporter.ts';

interface MochaTest { fullTitle?: string; title?: string; file?: string; duration?: number; err?: { message?: string } }
interface MochaReport { passes?: MochaTest[]; failures?: MochaTest[]; pending?: MochaTest[] }

const file = (ctx: ReportContext): string => `${ctx.reportDir}/mocha.json`;

export const mocha: Reporter = {
  runner: 'mocha',
  accepts: (words) => ['mocha', '_mocha'].includes(bin(words[0])),
  // A reporter the command names (`--reporter spec`, common) is replaced: Mocha takes the last one given.
  refuse: (invocation) => (invocation.last.some((w) => /^(--watch\b|-w$)/.test(w)) ? 'the command runs Mocha in watch mode' : undefined),
  args: (ctx) => ['--reporter', 'json', '--reporter-option', `output=${file(ctx)}`, ...(ctx.files ?? [])],
  async read(ctx) {
    await checkReport(file(ctx), 'Mocha wrote no report (it stopped early, or is older than 9.1, which has no output option)');
    let report: MochaReport;
    try { report = JSON.parse(await fsp.readFile(file(ctx), 'utf8')) as MochaReport; } catch { throw new Error('Mocha\'s report is not JSON'); }
    const outcomes: TestOutcome[] = [];
    const add = (list: MochaTest[] | undefined, status: TestOutcome['status']): void => {
      for (const t of Array.isArray(list) ? list : []) {
        if (typeof t.file !== 'string') continue;
        outcomes.push({ file: t.file, name: String(t.fullTitle ?? t.title ?? ''), status, ms: typeof t.duration === 'number' ? t.duration : null,
          ...(status === 'failed' ? { message: cleanMessage(t.err?.message) } : {}) });
      }
    };
    add(report.passes, 'passed');
    add(report.failures, 'failed');
    add(report.pending, 'skipped');
    return outcomes;
  },
};
