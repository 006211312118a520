import type { FoundTest, ScanContext } from '../../rules/types.ts';
import { withCases } from '../../rules/with-cases.ts';
import { countMatches, nearest, type FileIndex } from '../files.ts';
import { rubyGlobRegex } from '../patterns.ts';
import { dirname, joinPath } from '../../rules/paths.ts';
import { blockBody, namespaceAt, readRake } from './rake.ts';

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
    const sets = await rulesFor(ctx, root);
    if (!sets) continue;
    // Each task's exclusions apply to its own files only.
    const rules = sets.map((set) => ({ include: set.globs.map((g) => rubyGlobRegex(joinPath(root, g))),
      exclude: set.excludes.map((g) => rubyGlobRegex(joinPath(root, g))) }));
    for (const f of rb) {
      if (nearest(roots, f) === root && rules.some((r) => r.include.some((re) => re.test(f)) && !r.exclude.some((re) => re.test(f)))) picked.push(f);
    }
  }
  return withCases(ctx, picked, 'minitest', countMinitest, { rowPerFile: true });
}

async function rulesFor(ctx: ScanContext, root: string): Promise<Array<{ globs: string[]; excludes: string[] }> | undefined> {
  const gemfile = (await ctx.read(joinPath(root, 'Gemfile'))) ?? '';
  const rakefile = (await ctx.read(joinPath(root, 'Rakefile'))) ?? '';
  if (ctx.has(joinPath(root, 'config/application.rb')) || /^\s*gem\s+["']rails["']/m.test(gemfile)) {
    return [{ globs: ['test/**/*_test.rb'], excludes: ['test/system/**/*', 'test/dummy/**/*', 'test/fixtures/**/*'] }];
  }
  const rake = /Rake::TestTask\.new|Minitest::TestTask\.create|\.rake\b/.test(rakefile) ? await readRake(ctx, root) : undefined;
  const tasks = rake?.files.flatMap((f) => rakeTasks(f.text)) ?? [];
  if (rake && tasks.length > 0) {
    // The tasks the project's CI passes to rake (else `rake test` and what the default task reaches); with
    // none of those defined, every task is counted.
    const wanted = rake.fromCi ? rake.reached : new Set(['test', ...rake.reached]);
    const run = tasks.some((t) => wanted.has(t.name)) ? tasks.filter((t) => wanted.has(t.name)) : tasks;
    return run;
  }
  if (/\bminitest\b/.test(gemfile) || ctx.has(joinPath(root, 'test/test_helper.rb'))) {
    return [{ globs: ['test/**/test_*.rb', 'test/**/*_test.rb'], excludes: [] }];
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
  for (const m of rakefile.matchAll(/(Rake::TestTask\.new|Minitest::TestTask\.create)\s*\(?\s*(?::(\w+)|["']([\w:-]+)["'])?/g)) {
    if (rakefile.slice(rakefile.lastIndexOf('\n', m.index) + 1, m.index).includes('#')) continue;
    const body = blockBody(rakefile, m.index);
    const name = namespaceAt(rakefile, m.index) + (m[2] ?? m[3] ?? 'test');
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

/** Whether `inner` lies inside `outer`'s test/ or spec/ directory. */
export function insideTestDir(outer: string, inner: string): boolean {
  const rel = outer === '' ? inner : inner.startsWith(outer + '/') ? inner.slice(outer.length + 1) : undefined;
  return rel !== undefined && /^(?:test|spec)\//.test(rel);
}

// Module-level: a scan process keeps a rowPerFile counter between scans (with-cases.ts), so it must not hold a scan.
const countMinitest = (text: string): number => countMatches(text, MINITEST_CASES);
