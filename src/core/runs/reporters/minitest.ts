/**
 * minitest has no report format, but it loads every `minitest/*_plugin.rb` on the load path
 * (https://github.com/minitest/minitest#writing-extensions): a plugin put on it through `RUBYOPT=-I`
 * adds a reporter writing one JSON line per result (source file, name, status, time, message), in every
 * Ruby process of the step (`rake test` starts the tests in a child `ruby`). Runs with `MT_NO_PLUGINS` set
 * load no plugin, and report nothing.
 */
import { promises as fsp, statSync } from 'node:fs';
import { relative } from 'node:path';
import { bin, cleanMessage, checkReport, type Reporter, type ReportContext, type TestOutcome } from './reporter.ts';

const report = (ctx: ReportContext): string => `${ctx.reportDir}/minitest.jsonl`;
const libDir = (ctx: ReportContext): string => `${ctx.reportDir}/rubylib`;
const STATUSES = new Set(['passed', 'failed', 'skipped']);

const PLUGIN = `# Written by projdex for one test run; records minitest results as JSON lines.
require 'json'

module Minitest
  class PjxReporter < AbstractReporter
    def initialize(path)
      super()
      @path = path
    end

    def record(result)
      location = result.respond_to?(:source_location) ? result.source_location : nil
      status = result.skipped? ? 'skipped' : result.passed? ? 'passed' : 'failed'
      failure = status == 'failed' ? result.failure : nil
      line = JSON.generate(file: location && File.expand_path(location.first), name: "#{result.klass}##{result.name}",
                           status: status, ms: result.time * 1000, message: failure && "#{failure.class}: #{failure.message}")
      File.open(@path, 'a') { |f| f.puts(line) }
    rescue StandardError
      nil
    end
  end

  def self.plugin_pjx_init(_options)
    path = ENV['PJX_MINITEST_REPORT']
    reporter << PjxReporter.new(path) if path && !path.empty?
  end
end
`;

export const minitest: Reporter = {
  runner: 'minitest',
  defaultCommand: 'rake test',
  home: ['Rakefile', 'bin/rails'],
  commandIn: (dir) => (exists(`${dir}/bin/rails`) ? 'bin/rails test' : exists(`${dir}/Gemfile.lock`) ? 'bundle exec rake test' : 'rake test'),
  accepts: (words) => ['rake', 'rails', 'ruby', 'bundle', 'm', 'mtest'].includes(bin(words[0])),
  async prepare(ctx) {
    await fsp.mkdir(`${libDir(ctx)}/minitest`, { recursive: true });
    await fsp.writeFile(`${libDir(ctx)}/minitest/pjx_plugin.rb`, PLUGIN);
  },
  // `bin/rails test` takes paths; Rake's test task runs the one file `TEST=` names.
  wholeFor: (files, words) => (isRails(words) || (isRake(words) && files.length === 1) ? undefined
    : isRake(words) ? 'Rake\'s test task runs one file at a time (`TEST=`): the whole command ran'
      : 'this command chooses its own files: the whole command ran'),
  args: (ctx) => (!ctx.files ? [] : isRails(ctx.words) ? ctx.files.map((f) => relative(ctx.cwd, f))
    : [`TEST=${relative(ctx.cwd, ctx.files[0]!)}`]),
  env: (ctx) => ({ PJX_MINITEST_REPORT: report(ctx), RUBYOPT: [`-I${libDir(ctx)}`, ctx.env?.RUBYOPT].filter((o) => o).join(' ') }),
  async read(ctx) {
    await checkReport(report(ctx), 'minitest reported no result (its plugins may be off: MT_NO_PLUGINS, or the command runs no minitest)');
    const outcomes: TestOutcome[] = [];
    for (const text of (await fsp.readFile(report(ctx), 'utf8')).split('\n')) {
      let line: { file?: unknown; name?: unknown; status?: unknown; ms?: unknown; message?: unknown };
      try { line = JSON.parse(text) as typeof line; } catch { continue; }
      if (!line || typeof line !== 'object' || typeof line.file !== 'string' || !STATUSES.has(String(line.status))) continue;
      outcomes.push({ file: line.file, name: String(line.name ?? ''), status: line.status as TestOutcome['status'],
        ms: typeof line.ms === 'number' ? line.ms : null,
        ...(line.status === 'failed' ? { message: cleanMessage(line.message ?? '') } : {}) });
    }
    return outcomes;
  },
};

/** The words after `bundle exec`, where the program is. */
const program = (words: readonly string[]): readonly string[] =>
  (bin(words[0]) === 'bundle' && words[1] === 'exec' ? words.slice(2) : words);
const isRails = (words: readonly string[]): boolean =>
  bin(program(words)[0]) === 'rails' && program(words)[1] === 'test';
const isRake = (words: readonly string[]): boolean => {
  const [rake, task, ...rest] = program(words);
  return bin(rake) === 'rake' && task === 'test' && rest.length === 0;
};

function exists(path: string): boolean {
  try { statSync(path); return true; } catch { return false; }
}
