/**
 * Playwright Test (https://playwright.dev/docs/test-reporters#json-reporter): `--reporter=list,json` with
 * the JSON written to the file `PLAYWRIGHT_JSON_OUTPUT_FILE` names; spec files are relative to the
 * report's `config.rootDir`. A reporter the command names is replaced (the last `--reporter` wins).
 */
import { promises as fsp } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { bin, cleanMessage, checkReport, type Reporter, type ReportContext, type TestOutcome } from './reporter.ts';

interface PwResult { status?: string; duration?: number; error?: { message?: string } }
interface PwTest { status?: string; results?: PwResult[] }
interface PwSpec { title?: string; file?: string; tests?: PwTest[] }
interface PwSuite { title?: string; file?: string; specs?: PwSpec[]; suites?: PwSuite[] }
interface PwReport { config?: { rootDir?: string }; suites?: PwSuite[] }

/** Suites nest (describe blocks) at most this deep before the rest is ignored. */
const MAX_DEPTH = 64;

const file = (ctx: ReportContext): string => `${ctx.reportDir}/playwright.json`;

export const playwright: Reporter = {
  runner: 'playwright',
  accepts: (words) => bin(words[0]) === 'playwright' && words[1] === 'test',
  refuse: (invocation) => (invocation.last.some((w) => w === '--ui' || w.startsWith('--ui=') || w === '--debug')
    ? 'the command opens Playwright\'s UI or debugger' : undefined),
  args: (ctx) => ['--reporter=list,json', ...(ctx.files ?? [])],
  env: (ctx) => ({ PLAYWRIGHT_JSON_OUTPUT_FILE: file(ctx) }),
  async read(ctx) {
    await checkReport(file(ctx), 'Playwright wrote no report (it stopped before the end of the run)');
    let report: PwReport;
    try { report = JSON.parse(await fsp.readFile(file(ctx), 'utf8')) as PwReport; } catch { throw new Error('Playwright\'s report is not JSON'); }
    const rootDir = typeof report.config?.rootDir === 'string' ? report.config.rootDir : ctx.cwd;
    const outcomes: TestOutcome[] = [];
    const walk = (suite: PwSuite, depth: number): void => {
      if (depth > MAX_DEPTH) return;
      for (const spec of Array.isArray(suite.specs) ? suite.specs : []) {
        const rel = spec.file ?? suite.file;
        if (typeof rel !== 'string') continue;
        const path = isAbsolute(rel) ? rel : resolve(rootDir, rel);
        for (const test of Array.isArray(spec.tests) ? spec.tests : []) {
          const results = Array.isArray(test.results) ? test.results : [];
          // expected: passed (or skipped when every attempt was); flaky: passed on a retry; unexpected: failed.
          const status = test.status === 'unexpected' ? 'failed'
            : test.status === 'skipped' || (results.length > 0 && results.every((r) => r.status === 'skipped')) ? 'skipped' : 'passed';
          const ms = results.reduce((sum, r) => sum + (typeof r.duration === 'number' ? r.duration : 0), 0);
          const error = results.find((r) => r.error)?.error;
          outcomes.push({ file: path, name: String(spec.title ?? ''), status, ms: results.length > 0 ? ms : null,
            ...(status === 'failed' ? { message: cleanMessage(error?.message) } : {}) });
        }
      }
      for (const child of Array.isArray(suite.suites) ? suite.suites : []) walk(child, depth + 1);
    };
    for (const suite of Array.isArray(report.suites) ? report.suites : []) walk(suite, 0);
    return outcomes;
  },
};
