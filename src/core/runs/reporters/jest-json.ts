/**
 * Jest (https://jestjs.io/docs/cli#--json) and Vitest (https://vitest.dev/guide/reporters#json-reporter)
 * write the same JSON shape to a file: `testResults[]` per file (absolute `name`), `assertionResults[]`
 * per test. A file that cannot load has status `failed`, a `message` and no assertions.
 */
import { promises as fsp } from 'node:fs';
import { bin, cleanMessage, checkReport, type Reporter, type ReportContext, type TestOutcome } from './reporter.ts';

interface JsonReport {
  testResults?: Array<{
    name?: string; status?: string; message?: string;
    assertionResults?: Array<{ fullName?: string; title?: string; status?: string; duration?: number | null; failureMessages?: string[] }>;
  }>;
}

const file = (ctx: ReportContext): string => `${ctx.reportDir}/report.json`;

async function readJsonReport(ctx: ReportContext, runner: string): Promise<TestOutcome[]> {
  await checkReport(file(ctx), `${runner} wrote no report (it stopped before the end of the run)`);
  let report: JsonReport;
  try { report = JSON.parse(await fsp.readFile(file(ctx), 'utf8')) as JsonReport; } catch { throw new Error(`${runner}'s report is not JSON`); }
  const outcomes: TestOutcome[] = [];
  for (const result of Array.isArray(report.testResults) ? report.testResults : []) {
    if (typeof result.name !== 'string') continue;
    const tests = Array.isArray(result.assertionResults) ? result.assertionResults : [];
    if (tests.length === 0 && result.status === 'failed') {
      outcomes.push({ file: result.name, name: '(file)', status: 'failed', ms: null, message: cleanMessage(result.message) });
    }
    for (const t of tests) {
      const status = t.status === 'passed' ? 'passed' : t.status === 'failed' ? 'failed' : 'skipped';
      outcomes.push({ file: result.name, name: String(t.fullName ?? t.title ?? ''), status, ms: typeof t.duration === 'number' ? t.duration : null,
        ...(status === 'failed' ? { message: cleanMessage(t.failureMessages?.[0]) } : {}) });
    }
  }
  return outcomes;
}

export const jest: Reporter = {
  runner: 'jest',
  accepts: (words) => bin(words[0]) === 'jest',
  refuse: (invocation) => (invocation.last.some((w) => /^--(json|outputFile|watch|watchAll)\b/.test(w) && w !== '--watchAll=false')
    ? 'the command sets its own --json, --outputFile or watch flag' : undefined),
  // `--runTestsByPath`: the files asked for are exact paths, not the regexes Jest's positionals are.
  args: (ctx) => ['--ci', '--json', `--outputFile=${file(ctx)}`, ...(ctx.files ? ['--runTestsByPath', ...ctx.files] : [])],
  read: (ctx) => readJsonReport(ctx, 'Jest'),
};

export const vitest: Reporter = {
  runner: 'vitest',
  accepts: (words) => bin(words[0]) === 'vitest' && !words.includes('watch') && !words.includes('dev'),
  refuse: (invocation) => (invocation.last.some((w) => /^--(reporter|outputFile)\b/.test(w))
    ? 'the command chooses its own --reporter' : undefined),
  args: (ctx) => ['--reporter=default', '--reporter=json', `--outputFile.json=${file(ctx)}`, ...(ctx.files ?? [])],
  read: (ctx) => readJsonReport(ctx, 'Vitest'),
};
