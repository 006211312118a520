/**
 * Jasmine (https://jasmine.github.io/setup/nodejs.html): `--reporter=MODULE` replaces the default reporter
 * with one class. projdex's writes each spec's result (`filename` is given since jasmine-core 5.7) as a
 * JSON line and hands every event to Jasmine's own ConsoleReporter, resolved from the project, so the
 * terminal shows what it would without projdex.
 */
import { promises as fsp } from 'node:fs';
import { bin, cleanMessage, checkReport, type Reporter, type ReportContext, type TestOutcome } from './reporter.ts';

const report = (ctx: ReportContext): string => `${ctx.reportDir}/jasmine.jsonl`;
const module_ = (ctx: ReportContext): string => `${ctx.reportDir}/pjx-jasmine-reporter.cjs`;

const REPORTER = `// Written by projdex for one test run: spec results as JSON lines, the console reporter as usual.
const fs = require('node:fs');
const util = require('node:util');
const { createRequire } = require('node:module');
const EVENTS = ['jasmineStarted', 'suiteStarted', 'specStarted', 'specDone', 'suiteDone', 'jasmineDone'];

module.exports = class PjxReporter {
  constructor() {
    this.out = process.env.PJX_JASMINE_REPORT;
    try {
      const { ConsoleReporter } = createRequire(process.cwd() + '/')('jasmine');
      this.console = new ConsoleReporter();
      this.console.setOptions({ print: (...args) => process.stdout.write(util.format(...args)), showColors: false });
    } catch { this.console = undefined; }
    for (const event of EVENTS) {
      this[event] = (result) => {
        if (event === 'specDone') this.write(result);
        return this.console?.[event]?.(result);
      };
    }
  }
  write(result) {
    if (!this.out) return;
    const failed = (result.failedExpectations || [])[0];
    const status = result.status === 'passed' ? 'passed' : result.status === 'failed' ? 'failed' : 'skipped';
    const line = { file: result.filename || null, name: result.fullName, status, ms: result.duration ?? null,
      message: failed ? String(failed.message) : null };
    try { fs.appendFileSync(this.out, JSON.stringify(line) + '\\n'); } catch {}
  }
};
`;

export const jasmine: Reporter = {
  runner: 'jasmine',
  accepts: (words) => bin(words[0]) === 'jasmine',
  refuse: (invocation) => (invocation.last.some((w) => w.startsWith('--reporter')) ? 'the command sets its own --reporter, which Jasmine takes one of' : undefined),
  prepare: (ctx) => fsp.writeFile(module_(ctx), REPORTER),
  args: (ctx) => [`--reporter=${module_(ctx)}`, ...(ctx.files ?? [])],
  env: (ctx) => ({ PJX_JASMINE_REPORT: report(ctx) }),
  async read(ctx) {
    await checkReport(report(ctx), 'Jasmine reported no spec (it stopped before any spec ended)');
    const outcomes: TestOutcome[] = [];
    let unfiled = 0;
    for (const text of (await fsp.readFile(report(ctx), 'utf8')).split('\n')) {
      let line: { file?: unknown; name?: unknown; status?: unknown; ms?: unknown; message?: unknown };
      try { line = JSON.parse(text) as typeof line; } catch { continue; }
      if (!line || typeof line !== 'object' || !['passed', 'failed', 'skipped'].includes(String(line.status))) continue;
      if (typeof line.file !== 'string') { unfiled++; continue; }
      outcomes.push({ file: line.file, name: String(line.name ?? ''), status: line.status as TestOutcome['status'],
        ms: typeof line.ms === 'number' ? line.ms : null,
        ...(line.status === 'failed' ? { message: cleanMessage(line.message ?? '') } : {}) });
    }
    if (outcomes.length === 0 && unfiled > 0) throw new Error('Jasmine gave no spec its file (jasmine-core before 5.7 does not)');
    return outcomes;
  },
};
