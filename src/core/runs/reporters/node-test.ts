/**
 * node --test (https://nodejs.org/api/test.html#test-reporters): projdex's own reporter module writes one
 * JSON line per finished test into the report directory; the spec reporter keeps the human output.
 */
import { createReadStream, promises as fsp } from 'node:fs';
import { createInterface } from 'node:readline';
import { cleanMessage, checkReport, type Reporter, type ReportContext, type TestOutcome } from './reporter.ts';
import type { Invocation } from '../command.ts';

// Written into the report directory at each run, so the published package needs no extra file.
const REPORTER_SOURCE = `export default async function* pjxReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const d = event.data, details = d.details ?? {}, error = details.error;
    if (details.type === 'suite') continue;
    if (error && error.failureType === 'subtestsFailed') continue;
    const cause = error && (error.cause ?? error);
    yield JSON.stringify({ ev: event.type === 'test:pass' ? 'pass' : 'fail', file: d.file ?? null, name: d.name,
      nesting: d.nesting, skip: d.skip !== undefined && d.skip !== false, todo: d.todo !== undefined && d.todo !== false,
      ms: details.duration_ms ?? null, error: cause ? String(cause.message ?? cause).slice(0, 4000) : null }) + '\\n';
  }
}
`;

/** How many reporters and destinations the command names itself (`--test-reporter=x` or `--test-reporter x`). */
function ownReporters(words: readonly string[]): { reporters: number; destinations: number } {
  const count = (flag: string): number => words.filter((w) => w === flag || w.startsWith(`${flag}=`)).length;
  return { reporters: count('--test-reporter'), destinations: count('--test-reporter-destination') };
}

const file = (ctx: ReportContext): string => `${ctx.reportDir}/node-test.jsonl`;
const reporterFile = (ctx: ReportContext): string => `${ctx.reportDir}/pjx-reporter.mjs`;

export const nodeTest: Reporter = {
  runner: 'node-test',
  accepts: (words) => /^node(?:js)?\d*$/.test(words[0]?.slice(words[0].lastIndexOf('/') + 1) ?? '') && words.includes('--test'),
  refuse: (invocation: Invocation) => {
    const { reporters, destinations } = ownReporters(invocation.last);
    return destinations === 0 || destinations === reporters ? undefined
      : 'the command gives its --test-reporter flags a number of destinations projdex cannot pair its own with';
  },
  args(ctx) {
    // Reporters and destinations pair by order, and with two or more every reporter needs one: the
    // command's own reporters (`--test-reporter=spec` is common) keep writing to stdout.
    const { reporters, destinations } = ownReporters(ctx.words);
    const human = reporters === 0 ? ['--test-reporter=spec', '--test-reporter-destination=stdout']
      : destinations === 0 ? Array.from({ length: reporters }, () => '--test-reporter-destination=stdout') : [];
    return [...human, `--test-reporter=${reporterFile(ctx)}`, `--test-reporter-destination=${file(ctx)}`, ...(ctx.files ?? [])];
  },
  async prepare(ctx: ReportContext): Promise<void> {
    await fsp.writeFile(reporterFile(ctx), REPORTER_SOURCE, { mode: 0o600 });
  },
  async read(ctx) {
    await checkReport(file(ctx), 'node --test wrote no report (it ended before running any file)');
    const outcomes: TestOutcome[] = [];
    const lines = createInterface({ input: createReadStream(file(ctx)), crlfDelay: Infinity });
    for await (const line of lines) {
      let e: { ev?: string; file?: string | null; name?: string; skip?: boolean; todo?: boolean; ms?: number | null; error?: string | null };
      try { e = JSON.parse(line) as typeof e; } catch { continue; }
      if (typeof e.file !== 'string') continue;
      // A todo test that fails does not fail the run (node's own rule): it counts as skipped.
      const status = e.skip || e.todo ? 'skipped' : e.ev === 'fail' ? 'failed' : 'passed';
      outcomes.push({ file: e.file, name: String(e.name ?? ''), status, ms: typeof e.ms === 'number' ? e.ms : null,
        ...(status === 'failed' ? { message: cleanMessage(e.error) } : {}) });
    }
    return outcomes;
  },
};
