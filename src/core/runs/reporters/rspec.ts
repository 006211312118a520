/**
 * RSpec (https://rspec.info/features/3-12/rspec-core/command-line/format/): `--format json --out FILE`
 * writes `{ examples: [{ file_path, full_description, status, run_time, exception }] }`. Each `--out`
 * binds to the `--format` before it, and formats given on the command line replace those of `.rspec`, so
 * a formatter for the terminal is added first: the command's own when it names one, else the one its
 * `.rspec-local`/`.rspec` names, else `progress` (RSpec's default). A spec file that fails to load is
 * failed, from the report's `messages`.
 */
import { promises as fsp, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { bin, cleanMessage, checkReport, type Reporter, type ReportContext, type TestOutcome } from './reporter.ts';

interface Example { file_path?: string; full_description?: string; status?: string; run_time?: number; exception?: { class?: string; message?: string } }

const file = (ctx: ReportContext): string => `${ctx.reportDir}/rspec.json`;
/** An options file over this size is not read for its formats. */
const MAX_OPTIONS_FILE = 64 * 1024;
const FORMAT = /^(?:--format|-f)(?:=?(.+))?$/;

export const rspec: Reporter = {
  runner: 'rspec',
  defaultCommand: 'rspec',
  commandIn: (dir) => (exists(`${dir}/Gemfile.lock`) ? 'bundle exec rspec' : 'rspec'),
  home: ['.rspec', 'Gemfile', 'spec/spec_helper.rb'],
  accepts: (words) => bin(words[0]) === 'rspec' || (bin(words[0]) === 'bundle' && words[1] === 'exec' && bin(words[2]) === 'rspec'),
  args: (ctx) => [...terminalFormats(ctx), '--format', 'json', '--out', file(ctx), ...(ctx.files ?? [])],
  async read(ctx) {
    await checkReport(file(ctx), 'RSpec wrote no report (it stopped before the end of the run)');
    let report: { examples?: Example[]; messages?: unknown[] };
    try { report = JSON.parse(await fsp.readFile(file(ctx), 'utf8')) as typeof report; } catch { throw new Error('RSpec\'s report is not JSON'); }
    const outcomes: TestOutcome[] = [];
    // A spec file that does not load stops the run before any example; its message names the file.
    for (const message of Array.isArray(report.messages) ? report.messages : []) {
      const broken = /An error occurred while loading (\S+)\.\n/.exec(String(message));
      if (broken) outcomes.push({ file: resolve(ctx.cwd, broken[1]!), name: '(loading the file)', status: 'failed', ms: null, message: cleanMessage(String(message).trim()) });
    }
    for (const e of Array.isArray(report.examples) ? report.examples : []) {
      if (typeof e.file_path !== 'string') continue;
      const status = e.status === 'passed' ? 'passed' : e.status === 'failed' ? 'failed' : 'skipped';
      outcomes.push({ file: resolve(ctx.cwd, e.file_path), name: String(e.full_description ?? ''), status,
        ms: typeof e.run_time === 'number' ? e.run_time * 1000 : null,
        ...(status === 'failed' ? { message: cleanMessage(`${e.exception?.class ?? ''}: ${(e.exception?.message ?? '').trim()}`) } : {}) });
    }
    return outcomes;
  },
};

/** The formatter(s) the terminal shows: none added when the command names its own. */
function terminalFormats(ctx: ReportContext): string[] {
  if (ctx.words.some((w) => FORMAT.test(w))) return [];
  for (const name of ['.rspec-local', '.rspec']) {
    const formats = formatsIn(`${ctx.cwd}/${name}`);
    if (formats.length > 0) return formats.flatMap((f) => ['--format', f]);
  }
  return ['--format', 'progress'];
}

/** The formats an options file sends to the terminal (those without an `--out` after them). */
function formatsIn(path: string): string[] {
  let words: string[];
  try {
    if (statSync(path).size > MAX_OPTIONS_FILE) return [];
    words = readFileSync(path, 'utf8').split(/\s+/).filter((w) => w !== '');
  } catch { return []; }
  const formats: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const m = FORMAT.exec(words[i]!);
    if (!m) continue;
    const value = m[1] ?? words[++i];
    const toFile = words[i + 1] === '--out' || words[i + 1] === '-o' || words[i + 1]?.startsWith('--out=');
    if (value && !toFile && /^[\w:]+$/.test(value)) formats.push(value);
  }
  return formats;
}

function exists(path: string): boolean {
  try { statSync(path); return true; } catch { return false; }
}
