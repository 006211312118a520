import { parseShell } from '../../readers/shell/parse.ts';
import type { FoundTest, ScanContext } from '../../rules/types.ts';
import { withCases } from '../../rules/with-cases.ts';
import { countMatches, nearest, under, type FileIndex } from '../files.ts';
import { rubyGlobRegex } from '../patterns.ts';
import { insideTestDir } from './minitest.ts';
import { dirname, joinPath } from '../../rules/paths.ts';

const RSPEC_CASES = /^\s*(?:it|specify|example|scenario|its|fit|fspecify|fexample|xit|xspecify|xexample)\b(?![?!_])(?=\s*[({'"]|\s+do\b|\s*$)/gm;

/**
 * RSpec, per directory holding `.rspec` (or a Gemfile naming rspec, or a `spec/spec_helper.rb`): `spec` or
 * `--default-path`, pattern `**{,/*\/**}/*_spec.rb` or `--pattern` (a pattern starting with the path
 * is used as is, else it is joined under it), minus `--exclude-pattern`. `.rspec-local` overrides `.rspec`.
 * Cases: `it`/`specify`/`example`/`scenario` blocks (shared examples and loops not expanded).
 */
export async function discoverRspec(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  const rb = index.byExt.get('rb') ?? [];
  const roots = new Set((index.byName.get('.rspec') ?? []).map(dirname));
  // A Ruby project without `.rspec` still runs `spec/` when it has a spec_helper or names rspec in its Gemfile.
  for (const base of ['', ...(index.byName.get('Gemfile') ?? []).filter((f) => !/(?:^|\/)vendor\//.test(f)).map(dirname)]) {
    if (roots.has(base) || !index.dirs.has(joinPath(base, 'spec'))) continue;
    if (ctx.has(joinPath(base, 'spec/spec_helper.rb')) || /\brspec\b/.test((await ctx.read(joinPath(base, 'Gemfile'))) ?? '')) roots.add(base);
  }
  // A project inside another one's spec/ or test/ is fixture data: the enclosing glob reaches its files.
  for (const root of roots) if ([...roots].some((r) => r !== root && insideTestDir(r, root))) roots.delete(root);
  const picked: string[] = [];
  for (const root of roots) {
    let path = 'spec';
    let pattern = '**{,/*/**}/*_spec.rb';
    let exclude: string | undefined;
    for (const file of ['.rspec', '.rspec-local']) {
      const words = parseShell((await ctx.read(joinPath(root, file))) ?? '').flatMap((c) => c.argv);
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
      if (rel !== undefined && include.test(rel) && !excludeRe?.test(rel) && nearest(roots, file) === root) picked.push(file);
    }
  }
  return withCases(ctx, picked, 'rspec', countRspec, { rowPerFile: true });
}

// Module-level: a scan process keeps a rowPerFile counter between scans (with-cases.ts), so it must not hold a scan.
const countRspec = (text: string): number => countMatches(text, RSPEC_CASES);
