/**
 * pytest (https://docs.pytest.org/en/stable/how-to/output.html#creating-junitxml-format-files): JUnit XML
 * with `-o junit_family=xunit1`, whose testcases carry `file` (relative to pytest's rootdir) and `line`.
 */
import { promises as fsp } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseXml, xmlFind } from '../../../readers/xml.ts';
import { bin, cleanMessage, checkReport, type Reporter, type ReportContext, type TestOutcome } from './reporter.ts';

const file = (ctx: ReportContext): string => `${ctx.reportDir}/pytest.xml`;

export const pytest: Reporter = {
  runner: 'pytest',
  defaultCommand: 'pytest',
  accepts: (words) => ['pytest', 'py.test'].includes(bin(words[0]))
    || (/^python[\d.]*$/.test(bin(words[0])) && words[1] === '-m' && words[2] === 'pytest'),
  refuse: (invocation) => (invocation.last.some((w) => w.startsWith('--junitxml') || w.startsWith('--junit-xml'))
    ? 'the command writes its own --junitxml' : undefined),
  args: (ctx) => [`--junitxml=${file(ctx)}`, '-o', 'junit_family=xunit1', ...(ctx.files ?? [])],
  async read(ctx) {
    await checkReport(file(ctx), 'pytest wrote no report (it stopped before the end of the run)');
    const doc = parseXml(await fsp.readFile(file(ctx), 'utf8'));
    const known = new Set(ctx.known);
    const outcomes: TestOutcome[] = [];
    for (const testcase of xmlFind(doc, 'testcase')) {
      const { file: relative, name = '', classname = '', time } = testcase.attrs;
      const path = relative ? locate(relative, ctx, known) : undefined;
      if (!path) continue;
      const failure = testcase.children.find((c) => c.name === 'failure' || c.name === 'error');
      const skipped = testcase.children.some((c) => c.name === 'skipped');
      const status = failure ? 'failed' : skipped ? 'skipped' : 'passed';
      outcomes.push({ file: path, name: classname ? `${classname}::${name}` : name, status,
        ms: time !== undefined && Number.isFinite(Number(time)) ? Number(time) * 1000 : null,
        ...(failure ? { message: cleanMessage(failure.attrs.message ?? failure.text) } : {}) });
    }
    return outcomes;
  },
};

/**
 * `file` is relative to pytest's rootdir, which is usually the step's directory; when it is not, the
 * known test file that ends with the path is the one.
 */
function locate(relative: string, ctx: ReportContext, known: ReadonlySet<string>): string | undefined {
  const direct = isAbsolute(relative) ? relative : resolve(ctx.cwd, relative);
  if (known.has(direct) || known.size === 0) return direct;
  const tail = '/' + relative.replace(/^\.\//, '');
  return ctx.known.find((k) => k.endsWith(tail)) ?? direct;
}
