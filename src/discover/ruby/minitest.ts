import type { FoundTest, ScanContext } from '../../rules/types.ts';
import { withCases } from '../../rules/with-cases.ts';
import { countMatches, nearest, type FileIndex } from '../files.ts';
import { rubyGlobRegex } from '../patterns.ts';
import { dirname, joinPath } from '../../rules/paths.ts';

const MINITEST_CASES = /^\s*(?:def\s+test_\w*|(?:test|it)\s*\(?\s*["'])/gm;

/**
 * Minitest, per Ruby project (the root and each directory with a Gemfile or Rakefile, outside `vendor/`,
 * that has a `test/` directory). Rails apps (`config/application.rb` or `rails` in the Gemfile) run
 * `test/**\/*_test.rb` minus `test/{system,dummy,fixtures}/**`; otherwise literal `pattern` /
 * `test_files` of `Rake::TestTask` blocks in the Rakefile (default `test/test*.rb`), or
 * `Minitest::TestTask` defaults when the project names minitest. Cases: `def test_*`, `test "..."` and minitest/spec `it "..."`.
 */
export async function discoverMinitest(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  const rb = index.byExt.get('rb') ?? [];
  const roots = new Set(['', ...[...index.byName.get('Gemfile') ?? [], ...index.byName.get('Rakefile') ?? []]
    .filter((f) => !/(?:^|\/)vendor\//.test(f)).map(dirname)]);
  for (const root of roots) if (!index.dirs.has(joinPath(root, 'test'))) roots.delete(root);
  // A Gemfile/Rakefile inside another project's test/ or spec/ is fixture data: that project's glob reaches it.
  for (const root of roots) if ([...roots].some((r) => r !== root && insideTestDir(r, root))) roots.delete(root);
  const picked: string[] = [];
  for (const root of roots) {
    const rules = await rulesFor(ctx, root);
    if (!rules) continue;
    const include = rules.globs.map((g) => rubyGlobRegex(joinPath(root, g)));
    const exclude = rules.excludes.map((g) => rubyGlobRegex(joinPath(root, g)));
    for (const f of rb) {
      if (nearest(roots, f) === root && include.some((re) => re.test(f)) && !exclude.some((re) => re.test(f))) picked.push(f);
    }
  }
  return withCases(ctx, picked, 'minitest', countMinitest, { rowPerFile: true });
}

async function rulesFor(ctx: ScanContext, root: string): Promise<{ globs: string[]; excludes: string[] } | undefined> {
  const gemfile = (await ctx.read(joinPath(root, 'Gemfile'))) ?? '';
  const rakefile = (await ctx.read(joinPath(root, 'Rakefile'))) ?? '';
  if (ctx.has(joinPath(root, 'config/application.rb')) || /^\s*gem\s+["']rails["']/m.test(gemfile)) {
    return { globs: ['test/**/*_test.rb'], excludes: ['test/system/**/*', 'test/dummy/**/*', 'test/fixtures/**/*'] };
  }
  if (/Rake::TestTask\.new|Minitest::TestTask\.create/.test(rakefile)) {
    const tasks = rakeTasks(rakefile);
    // `rake test` (and a default task that names it) runs the task called :test; other tasks run when
    // the default task lists them. With no :test task at all, every task is counted.
    const wanted = new Set(['test', ...defaultTasks(rakefile)]);
    const run = tasks.some((t) => wanted.has(t.name)) ? tasks.filter((t) => wanted.has(t.name)) : tasks;
    return { globs: run.flatMap((t) => t.globs), excludes: run.flatMap((t) => t.excludes) };
  }
  if (/\bminitest\b/.test(gemfile) || ctx.has(joinPath(root, 'test/test_helper.rb'))) {
    return { globs: ['test/**/test_*.rb', 'test/**/*_test.rb'], excludes: [] };
  }
  return undefined;
}

interface RakeTask { readonly name: string; readonly globs: string[]; readonly excludes: string[] }

/**
 * `Rake::TestTask.new(:name) do |t| ... end` blocks (literal `pattern`, `test_files = FileList[...]` or
 * `Dir[...]`, with `.exclude(...)`; default `test/test*.rb`) and `Minitest::TestTask.create(:name)` blocks
 * (literal `test_globs`; default `test/**\/test_*.rb` and `test/**\/*_test.rb`).
 */
function rakeTasks(rakefile: string): RakeTask[] {
  const out: RakeTask[] = [];
  for (const m of rakefile.matchAll(/(Rake::TestTask\.new|Minitest::TestTask\.create)\s*\(?\s*(?::(\w+)|["'](\w+)["'])?/g)) {
    const rest = rakefile.slice(m.index + m[0].length);
    const end = rest.search(/^\s*end\b/m);
    const body = end === -1 ? rest : rest.slice(0, end);
    const name = m[2] ?? m[3] ?? 'test';
    const strings = (src: string | undefined): string[] => [...(src ?? '').matchAll(/["']([^"']+)["']/g)].map((x) => x[1]!);
    const excludes = strings(/\.exclude\(([^)]*)\)/.exec(body)?.[1]);
    if (m[1] === 'Minitest::TestTask.create') {
      const globs = strings(/\.test_globs\s*=\s*(\[[^\]]*\]|["'][^"']*["'])/.exec(body)?.[1]);
      out.push({ name, globs: globs.length ? globs : ['test/**/test_*.rb', 'test/**/*_test.rb'], excludes });
      continue;
    }
    const pattern = /\.pattern\s*=\s*["']([^"']+)["']/.exec(body)?.[1];
    const files = /\.test_files\s*=\s*(?:FileList|Dir(?:\.glob)?)\s*[[(]([^\])]*)/.exec(body)?.[1];
    const globs = [...strings(files), ...(pattern ? [pattern] : [])];
    out.push({ name, globs: globs.length ? globs : ['test/test*.rb'], excludes });
  }
  return out;
}

/** Task names a `task default: [...]` / `task :default => [...]` line lists. */
function defaultTasks(rakefile: string): string[] {
  const line = /^\s*task\s*\(?\s*(?:default:|:default\s*=>)\s*(.*)$/m.exec(rakefile)?.[1] ?? '';
  const words = /%[iw][[(]([^\])]*)/.exec(line)?.[1]?.split(/\s+/).filter(Boolean) ?? [];
  return [...words, ...[...line.replace(/%[iw][[(][^\])]*/, '').matchAll(/:(\w+)|["'](\w+)["']/g)].map((x) => x[1] ?? x[2]!)];
}

/** Whether `inner` lies inside `outer`'s test/ or spec/ directory. */
export function insideTestDir(outer: string, inner: string): boolean {
  const rel = outer === '' ? inner : inner.startsWith(outer + '/') ? inner.slice(outer.length + 1) : undefined;
  return rel !== undefined && /^(?:test|spec)\//.test(rel);
}

// Module-level: a scan process keeps a rowPerFile counter between scans (with-cases.ts), so it must not hold a scan.
const countMinitest = (text: string): number => countMatches(text, MINITEST_CASES);
