/**
 * Python unittest has no report format: a `sitecustomize` module first on PYTHONPATH (unittest-hook.ts)
 * makes unittest's own result object write JSON lines as tests finish, whatever starts them (`python -m
 * unittest`, `manage.py test`, `coverage run`). A test's file is its class's source file; a module that
 * failed to import is placed on the known file its dotted name ends with.
 */
import { promises as fsp } from 'node:fs';
import { delimiter, relative } from 'node:path';
import { bin, cleanMessage, checkReport, type Reporter, type ReportContext, type TestOutcome } from './reporter.ts';
import { UNITTEST_HOOK } from './unittest-hook.ts';

interface Line { file?: unknown; module?: unknown; name?: unknown; status?: unknown; message?: unknown; ms?: unknown }

const report = (ctx: ReportContext): string => `${ctx.reportDir}/unittest.jsonl`;
const hookDir = (ctx: ReportContext): string => `${ctx.reportDir}/pythonpath`;
const STATUSES = new Set(['passed', 'failed', 'skipped']);

export const unittest: Reporter = {
  runner: 'unittest',
  defaultCommand: 'python3 -m unittest',
  accepts: (words) => /^(?:python[\d.]*|coverage[\d.]*)$/.test(bin(words[0])),
  async prepare(ctx) {
    await fsp.mkdir(hookDir(ctx));
    await fsp.writeFile(`${hookDir(ctx)}/sitecustomize.py`, UNITTEST_HOOK);
  },
  // `python -m unittest [options]` takes files; a command that names or discovers its modules does not.
  wholeFor: (_files, words) => (takesFiles(words) ? undefined
    : 'unittest runs the modules its command names or discovers: the whole command ran'),
  args: (ctx) => (ctx.files ?? []).map((f) => relative(ctx.cwd, f)),
  env: (ctx) => ({
    PJX_UNITTEST_REPORT: report(ctx),
    PYTHONPATH: [hookDir(ctx), ctx.env?.PYTHONPATH].filter((p) => p).join(delimiter),
  }),
  async read(ctx) {
    await checkReport(report(ctx), 'unittest reported no result (the command may not run unittest, or it ran in an environment that drops PYTHONPATH, as tox does)');
    const outcomes: TestOutcome[] = [];
    for (const text of (await fsp.readFile(report(ctx), 'utf8')).split('\n')) {
      let line: Line;
      try { line = JSON.parse(text) as Line; } catch { continue; }
      if (!line || typeof line !== 'object' || !STATUSES.has(String(line.status))) continue;
      const file = typeof line.file === 'string' && !line.module ? line.file
        : typeof line.module === 'string' ? moduleFile(line.module, ctx.known) : undefined;
      if (!file) continue;
      outcomes.push({ file, name: String(line.name ?? ''), status: line.status as TestOutcome['status'],
        ms: typeof line.ms === 'number' ? line.ms : null,
        ...(line.status === 'failed' ? { message: cleanMessage(line.message ?? '') } : {}) });
    }
    return outcomes;
  },
};

/** `python -m unittest` (or `coverage run -m unittest`) followed by options only, `-k PATTERN` included. */
function takesFiles(words: readonly string[]): boolean {
  const at = words.findIndex((w, i) => w === '-m' && words[i + 1] === 'unittest');
  if (at === -1) return false;
  const rest = words.slice(at + 2);
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '-k') i++;
    else if (!rest[i]!.startsWith('-')) return false;
  }
  return true;
}

/** The one known file a dotted module name (`tests.test_a`) ends with, `tests/test_a.py`. */
function moduleFile(module: string, known: readonly string[]): string | undefined {
  const tail = `/${module.replaceAll('.', '/')}`;
  const found = known.filter((k) => k.endsWith(`${tail}.py`) || k.endsWith(`${tail}/__init__.py`));
  return found.length === 1 ? found[0] : undefined;
}
