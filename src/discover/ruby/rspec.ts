import { parseShell } from '../../readers/shell/parse.ts';
import type { FoundTest, ScanContext } from '../../rules/types.ts';
import { withCases } from '../../rules/with-cases.ts';
import { countMatches, nearest, under, type FileIndex } from '../files.ts';
import { rubyGlobRegex } from '../patterns.ts';
import { insideTestDir } from './minitest.ts';
import { dirname, joinPath } from '../../rules/paths.ts';
import { blockBody, namespaceAt, readRake } from './rake.ts';

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
  // A Rakefile whose run reaches an `RSpec::Core::RakeTask` runs RSpec there, whatever its files are named.
  const rakeRuns = new Map<string, RakeRun[]>();
  for (const base of ['', ...(index.byName.get('Rakefile') ?? []).filter((f) => !/(?:^|\/)vendor\//.test(f)).map(dirname)]) {
    const runs = await rspecRakeRuns(ctx, base);
    if (runs.length > 0) { rakeRuns.set(base, runs); roots.add(base); }
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
    // The rake task hands its own `--pattern` to rspec, in place of the one in .rspec; rspec globs a
    // pattern under the default path and, unless it starts with `**`, from the working directory too.
    const runs = rakeRuns.get(root) ?? [{ pattern, exclude }];
    const fromRoot = (p: string): boolean => !rakeRuns.has(root) || p.startsWith(path) || p.startsWith('./' + path) || p.split('/')[0]!.includes('**');
    const rules = runs.map((r) => ({
      include: [rubyGlobRegex(full(r.pattern)), ...(fromRoot(r.pattern) ? [] : [rubyGlobRegex(`{${r.pattern.replace(/^\.\//, '')}}`)])],
      exclude: r.exclude ? rubyGlobRegex(full(r.exclude)) : undefined,
    }));
    for (const file of rb) {
      const rel = under(root, file);
      if (rel === undefined || nearest(roots, file) !== root) continue;
      if (rules.some((r) => r.include.some((re) => re.test(rel)) && !r.exclude?.test(rel))) picked.push(file);
    }
    if (rakeRuns.has(root)) {
      const names = rakeRuns.get(root)!.map((r) => `\`${r.name}\``).join(', ');
      ctx.note(`RSpec${root ? ` in ${root}` : ''}: patterns taken from the RSpec::Core::RakeTask tasks ${names} that the project's rake run reaches`);
    }
  }
  return withCases(ctx, picked, 'rspec', countRspec, { rowPerFile: true });
}

interface RakeRun { readonly name?: string; readonly pattern: string; readonly exclude: string | undefined }

/**
 * The `RSpec::Core::RakeTask` tasks (Rakefile and the task files it loads) that the project's rake run
 * reaches, each with its literal `pattern` (a string, `Dir.glob(...)` or `FileList[...]` of one glob;
 * default `spec/**{,/*\/**}/*_spec.rb`) and `exclude_pattern`. None when no such task is reached.
 */
async function rspecRakeRuns(ctx: ScanContext, base: string): Promise<RakeRun[]> {
  const rakefile = await ctx.read(joinPath(base, 'Rakefile'));
  if (rakefile === undefined || !/RSpec::Core::RakeTask|\.rake\b/.test(rakefile)) return [];
  const rake = await readRake(ctx, base);
  if (!rake) return [];
  const out: RakeRun[] = [];
  for (const { text } of rake.files) {
    for (const m of text.matchAll(/RSpec::Core::RakeTask\.new\s*\(?\s*(?::(\w+)|:?["']([^"'\n]+)["'])?/g)) {
      // A commented-out definition (`# RSpec::Core::RakeTask.new(...)`) defines nothing.
      if (text.slice(text.lastIndexOf('\n', m.index) + 1, m.index).includes('#')) continue;
      const written = m[1] ?? m[2] ?? 'spec';
      const body = blockBody(text, m.index);
      const glob = /\.pattern\s*=\s*(?:Dir\.glob\s*\(\s*|FileList\s*\[\s*)?["']([^"']+)["']/.exec(body)?.[1];
      const exclude = /\.exclude_pattern\s*=\s*["']([^"']+)["']/.exec(body)?.[1];
      // `%w[chrome firefox].each do |driver|` ... `RakeTask.new(:"spec_#{driver}")`: one task per value.
      for (const values of loopValues(text, m.index, written)) {
        const fill = (t: string): string => Object.entries(values).reduce((acc, [k, v]) => acc.split(`#{${k}}`).join(v), t);
        const name = namespaceAt(text, m.index) + fill(written);
        if (name.includes('#{') || !rake.reached.has(name)) continue;
        const pattern = glob === undefined ? '**{,/*/**}/*_spec.rb' : fill(glob);
        out.push({ name, pattern, exclude: exclude === undefined ? undefined : fill(exclude) });
      }
    }
  }
  return out;
}

/**
 * The values a task name's `#{var}` takes from the nearest `%w[...]` / `%i[...]` / `[...]` literal's
 * `.each do |var|` above it; a name without interpolation takes itself once.
 */
function loopValues(text: string, at: number, name: string): Array<Record<string, string>> {
  const vars = [...name.matchAll(/#\{(\w+)\}/g)].map((v) => v[1]!);
  if (vars.length !== 1) return [{}];
  const before = text.slice(Math.max(0, at - 2000), at);
  const loops = [...before.matchAll(/(?:%[wi]\[([^\]]*)\]|\[([^\]]*)\])\.each\s+do\s*\|\s*(\w+)\s*\|/g)].filter((l) => l[3] === vars[0]);
  const loop = loops[loops.length - 1];
  if (!loop) return [{}];
  const words = loop[1] !== undefined ? loop[1].split(/\s+/).filter(Boolean) : [...loop[2]!.matchAll(/:?["']?(\w+)["']?/g)].map((w) => w[1]!);
  return words.slice(0, 32).map((w) => ({ [vars[0]!]: w }));
}

// Module-level: a scan process keeps a rowPerFile counter between scans (with-cases.ts), so it must not hold a scan.
const countRspec = (text: string): number => countMatches(text, RSPEC_CASES);
