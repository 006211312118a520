/**
 * PHPUnit (https://docs.phpunit.de/en/9.6/textui.html): `--log-junit FILE` writes JUnit XML beside the
 * usual terminal output; its testcases carry `file` (absolute) and `line`, data-provider cases nest in a
 * suite of their method. `<error>` (an exception) counts as failed like `<failure>`; `<skipped/>` stands
 * for skipped and incomplete tests alike.
 */
import { promises as fsp, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseXml, xmlFind } from '../../../readers/xml.ts';
import { bin, cleanMessage, checkReport, type Reporter, type ReportContext, type TestOutcome } from './reporter.ts';

const file = (ctx: ReportContext): string => `${ctx.reportDir}/phpunit.xml`;

export const phpunit: Reporter = {
  runner: 'phpunit',
  defaultCommand: 'phpunit',
  commandIn: (dir) => (exists(`${dir}/vendor/bin/phpunit`) ? 'vendor/bin/phpunit' : 'phpunit'),
  home: ['phpunit.xml', 'phpunit.dist.xml', 'phpunit.xml.dist'],
  accepts: (words) => bin(words[0]) === 'phpunit' || (/^php[\d.]*$/.test(bin(words[0])) && bin(words[1]) === 'phpunit'),
  refuse: (invocation) => (invocation.last.some((w) => w.startsWith('--log-junit')) ? 'the command writes its own --log-junit' : undefined),
  // PHPUnit 9 takes one test path; a second is an error there.
  wholeFor: (files) => (files.length === 1 ? undefined : 'PHPUnit 9 takes a single test file: the whole command ran'),
  args: (ctx) => ['--log-junit', file(ctx), '--colors=never', ...(ctx.files ?? [])],
  async read(ctx) {
    await checkReport(file(ctx), 'PHPUnit wrote no report (it stopped before the end of the run)');
    const outcomes: TestOutcome[] = [];
    for (const testcase of xmlFind(parseXml(await fsp.readFile(file(ctx), 'utf8')), 'testcase')) {
      const { file: path, name = '', class: cls, classname, time } = testcase.attrs;
      if (!path) continue;
      const failure = testcase.children.find((c) => c.name === 'failure' || c.name === 'error');
      const skipped = testcase.children.some((c) => c.name === 'skipped');
      outcomes.push({
        file: isAbsolute(path) ? path : resolve(ctx.cwd, path), name: `${cls ?? classname ?? ''}::${name}`,
        status: failure ? 'failed' : skipped ? 'skipped' : 'passed',
        ms: time !== undefined && Number.isFinite(Number(time)) ? Number(time) * 1000 : null,
        ...(failure ? { message: cleanMessage(failure.text.trim()) } : {}),
      });
    }
    return outcomes;
  },
};

function exists(path: string): boolean {
  try { statSync(path); return true; } catch { return false; }
}
