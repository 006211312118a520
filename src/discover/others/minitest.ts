import type { FoundTest, ScanContext } from '../../scan/types.ts';
import { withCases } from '../../scan/with-cases.ts';
import { countMatches, nearest, type FileIndex } from './files.ts';
import { rubyGlobRegex } from './patterns.ts';
import { dirname, joinPath } from '../../scan/paths.ts';

const MINITEST_CASES = /^\s*(?:def\s+test_\w*|test\s*\(?\s*["'])/gm;

/**
 * Minitest, per Ruby project (the root and each directory with a Gemfile or Rakefile, outside `vendor/`,
 * that has a `test/` directory). Rails apps (`config/application.rb` or `rails` in the Gemfile) run
 * `test/**\/*_test.rb` minus `test/{system,dummy,fixtures}/**`; otherwise literal `pattern` /
 * `test_files` of `Rake::TestTask` blocks in the Rakefile (default `test/test*.rb`), or
 * `Minitest::TestTask` defaults when the project names minitest. Cases: `def test_*` and `test "..."`.
 */
export async function discoverMinitest(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  const rb = index.byExt.get('rb') ?? [];
  const roots = new Set(['', ...[...index.byName.get('Gemfile') ?? [], ...index.byName.get('Rakefile') ?? []]
    .filter((f) => !/(?:^|\/)vendor\//.test(f)).map(dirname)]);
  for (const root of roots) if (!index.dirs.has(joinPath(root, 'test'))) roots.delete(root);
  const picked: string[] = [];
  for (const root of roots) {
    const rules = await rulesFor(ctx, root);
    if (!rules) continue;
    const include = rules.globs.map((g) => rubyGlobRegex(joinPath(root, g)));
    const exclude = rules.excludes.map((g) => rubyGlobRegex(joinPath(root, g)));
    for (const f of rb) {
      if (nearest(roots, f) === root && include.some((re) => re.test(f)) && !exclude.some((re) => re.test(f)) && !f.endsWith('test_helper.rb')) picked.push(f);
    }
  }
  return withCases(ctx, picked, 'minitest', (text) => countMatches(text, MINITEST_CASES));
}

async function rulesFor(ctx: ScanContext, root: string): Promise<{ globs: string[]; excludes: string[] } | undefined> {
  const gemfile = (await ctx.read(joinPath(root, 'Gemfile'))) ?? '';
  const rakefile = (await ctx.read(joinPath(root, 'Rakefile'))) ?? '';
  if (ctx.has(joinPath(root, 'config/application.rb')) || /^\s*gem\s+["']rails["']/m.test(gemfile)) {
    return { globs: ['test/**/*_test.rb'], excludes: ['test/system/**/*', 'test/dummy/**/*', 'test/fixtures/**/*'] };
  }
  if (/Rake::TestTask\.new/.test(rakefile)) {
    const globs: string[] = [];
    for (const block of rakefile.split(/Rake::TestTask\.new/).slice(1)) {
      const end = block.search(/^end\b/m);
      const body = end === -1 ? block : block.slice(0, end);
      const pattern = /\.pattern\s*=\s*["']([^"']+)["']/.exec(body)?.[1];
      const files = /\.test_files\s*=\s*FileList\s*[[(]([^\])]*)/.exec(body)?.[1];
      if (pattern) globs.push(pattern);
      else if (files) globs.push(...[...files.matchAll(/["']([^"']+)["']/g)].map((m) => m[1]!));
      else globs.push('test/test*.rb');
    }
    return { globs, excludes: [] };
  }
  if (/Minitest::TestTask/.test(rakefile) || /\bminitest\b/.test(gemfile) || ctx.has(joinPath(root, 'test/test_helper.rb'))) {
    return { globs: ['test/**/test_*.rb', 'test/**/*_test.rb'], excludes: [] };
  }
  return undefined;
}
