import { parseShell } from '../../scan/shell.ts';
import type { FoundTest, ScanContext } from '../../scan/types.ts';
import { countMatches, dirname, join, under, withCases, type FileIndex } from './files.ts';
import { rubyGlobRegex } from './patterns.ts';

const RSPEC_CASES = /^\s*(?:it|specify|example|scenario|its|fit|fspecify|fexample|xit|xspecify|xexample)\b(?![?!_])(?=\s*[({'"]|\s+do\b|\s*$)/gm;
const MINITEST_CASES = /^\s*(?:def\s+test_\w*|test\s*\(?\s*["'])/gm;

/**
 * RSpec, per directory holding `.rspec` (plus the root when it has `spec/` and names rspec): `spec` or
 * `--default-path`, pattern `**{,/*\/**}/*_spec.rb` or `--pattern` (a pattern starting with the path
 * is used as is, else it is joined under it), minus `--exclude-pattern`. `.rspec-local` overrides `.rspec`.
 * Cases: `it`/`specify`/`example`/`scenario` blocks (shared examples and loops not expanded).
 */
export async function discoverRspec(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  const rb = index.byExt.get('rb') ?? [];
  const roots = new Set((index.byName.get('.rspec') ?? []).map(dirname));
  if (!roots.has('') && index.dirs.has('spec') && (ctx.has('spec/spec_helper.rb') || /\brspec\b/.test(await ctx.read('Gemfile') ?? ''))) roots.add('');
  const picked: string[] = [];
  for (const root of roots) {
    let path = 'spec';
    let pattern = '**{,/*/**}/*_spec.rb';
    let exclude: string | undefined;
    for (const file of ['.rspec', '.rspec-local']) {
      const words = parseShell((await ctx.read(join(root, file))) ?? '').flatMap((c) => c.argv);
      for (let i = 0; i < words.length; i++) {
        const m = /^(--[\w-]+|-P)(?:=(.*))?$/.exec(words[i]!);
        if (!m) continue;
        const value = (): string => m[2] ?? words[++i] ?? '';
        if (m[1] === '--pattern' || m[1] === '-P') pattern = value();
        else if (m[1] === '--exclude-pattern') exclude = value();
        else if (m[1] === '--default-path') path = value();
      }
    }
    // rspec-core wraps the pattern in braces (so a comma list alternates) and joins it under the path
    // unless it already starts with it.
    const full = (p: string): string => {
      const braced = `{${p.trim().replace(/\s*,\s*/g, ',')}}`;
      return p.startsWith(path) || p.startsWith('./' + path) ? braced.replace(/^\{\.\//, '{') : `${path}/${braced}`;
    };
    const include = rubyGlobRegex(full(pattern));
    const excludeRe = exclude ? rubyGlobRegex(full(exclude)) : undefined;
    for (const file of rb) {
      const rel = under(root, file);
      if (rel !== undefined && include.test(rel) && !excludeRe?.test(rel)) picked.push(file);
    }
  }
  return withCases(ctx, picked, 'rspec', (text) => countMatches(text, RSPEC_CASES));
}

/**
 * Minitest at the project root: Rails apps (`config/application.rb` or `rails` in the Gemfile) run
 * `test/**\/*_test.rb` minus `test/{system,dummy,fixtures}/**`; otherwise literal `pattern` /
 * `test_files` of `Rake::TestTask` blocks in the Rakefile (default `test/test*.rb`), or
 * `Minitest::TestTask` defaults. Cases: `def test_*` and `test "..."`.
 */
export async function discoverMinitest(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  const rb = index.byExt.get('rb') ?? [];
  if (!index.dirs.has('test')) return [];
  const gemfile = (await ctx.read('Gemfile')) ?? '';
  const rakefile = (await ctx.read('Rakefile')) ?? '';
  let globs: string[] | undefined;
  let excludes: string[] = [];
  if (ctx.has('config/application.rb') || /^\s*gem\s+["']rails["']/m.test(gemfile)) {
    globs = ['test/**/*_test.rb'];
    excludes = ['test/system/**/*', 'test/dummy/**/*', 'test/fixtures/**/*'];
  } else if (/Rake::TestTask\.new/.test(rakefile)) {
    globs = [];
    for (const block of rakefile.split(/Rake::TestTask\.new/).slice(1)) {
      const body = block.slice(0, block.search(/^end\b/m) + 1 || undefined);
      const pattern = /\.pattern\s*=\s*["']([^"']+)["']/.exec(body)?.[1];
      const files = /\.test_files\s*=\s*FileList\s*[[(]([^\])]*)/.exec(body)?.[1];
      if (pattern) globs.push(pattern);
      else if (files) globs.push(...[...files.matchAll(/["']([^"']+)["']/g)].map((m) => m[1]!));
      else globs.push('test/test*.rb');
    }
  } else if (/Minitest::TestTask/.test(rakefile) || /\bminitest\b/.test(gemfile) || ctx.has('test/test_helper.rb')) {
    globs = ['test/**/test_*.rb', 'test/**/*_test.rb'];
  }
  if (!globs) return [];
  const include = globs.map((g) => rubyGlobRegex(join('', g)));
  const exclude = excludes.map((g) => rubyGlobRegex(g));
  const picked = rb.filter((f) => include.some((re) => re.test(f)) && !exclude.some((re) => re.test(f)) && !f.endsWith('test_helper.rb'));
  return withCases(ctx, picked, 'minitest', (text) => countMatches(text, MINITEST_CASES));
}
