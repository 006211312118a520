import type { FoundTest, ScanContext } from '../rules/types.ts';
import { withCases } from '../rules/with-cases.ts';
import { countMatches, nearest, under, type FileIndex } from './files.ts';
import { rubyGlobRegex } from './patterns.ts';
import { basename, dirname, joinPath } from '../rules/paths.ts';
import { notePattern, projectRegExp } from '../readers/safe-regex.ts';

const CASES = /^\s*(?:test|property)\s*\(?\s*["']/gm;

/**
 * ExUnit, per Mix project (`mix.exs` outside `deps/` and `_build/`): files below each literal
 * `test_paths` entry (default `test`) whose basename matches the literal `test_pattern` (default
 * `*_test.exs`). An umbrella root (`apps_path:`) runs only its apps' tests. Computed values fall back
 * to the defaults, with a note. Cases: `test "..."` and `property "..."`.
 */
export async function discoverExunit(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  const projects = new Map<string, { paths: string[]; pattern: RegExp; filters?: Array<(rel: string) => boolean> }>();
  for (const mix of index.byName.get('mix.exs') ?? []) {
    if (/(?:^|\/)(?:deps|_build)\//.test(mix)) continue;
    const text = (await ctx.read(mix)) ?? '';
    const dir = dirname(mix);
    if (/\bapps_path:/.test(text)) { projects.set(dir, { paths: [], pattern: /(?!)/ }); continue; }
    const pathsSrc = /\btest_paths:\s*(\[[^\]]*\]|[^\n,]+)/.exec(text)?.[1];
    const patternSrc = /\btest_pattern:\s*("[^"\n]*"|[^\n,]+)/.exec(text)?.[1];
    const literal = (src: string | undefined): string[] | undefined => {
      if (src === undefined) return undefined;
      const strings = [...src.matchAll(/"([^"#]*)"/g)].map((m) => m[1]!);
      return strings.length > 0 && /^\[?\s*(?:"[^"#]*"\s*,?\s*)+\]?\s*$/.test(src.trim()) ? strings : undefined;
    };
    const paths = literal(pathsSrc);
    const pattern = literal(patternSrc)?.[0];
    if ((pathsSrc && !paths) || (patternSrc && !pattern)) ctx.note(`${mix}: test_paths/test_pattern is computed; used the defaults`);
    const filters = loadFilters(text);
    if (filters === null) ctx.note(`${mix}: test_load_filters is computed; used the test_pattern`);
    projects.set(dir, { paths: (paths ?? ['test']).map((p) => joinPath(dir, p)), pattern: rubyGlobRegex(pattern ?? '*_test.exs'), ...(filters ? { filters } : {}) });
  }
  if (projects.size === 0) return [];
  // A mix.exs inside another project's test paths is fixture data: the enclosing project's glob reaches it.
  for (const dir of projects.keys()) {
    if ([...projects].some(([d, p]) => d !== dir && p.paths.some((tp) => under(tp, dir) !== undefined))) projects.delete(dir);
  }
  const dirs = new Set(projects.keys());
  const picked: string[] = [];
  for (const file of index.byExt.get('exs') ?? []) {
    const project = projects.get(nearest(dirs, file) ?? '\0');
    if (!project || !project.paths.some((p) => under(p, file) !== undefined)) continue;
    const dir = nearest(dirs, file)!;
    if (project.filters ? project.filters.some((f) => f(under(dir, file)!)) : project.pattern.test(basename(file))) picked.push(file);
  }
  return withCases(ctx, picked, 'exunit', countExunit, { rowPerFile: true });
}

/**
 * Literal `test_load_filters: [...]` (Elixir 1.17+): `~r/.../` regexes and `&String.ends_with?(&1, "x")`
 * (or starts_with?) captures, matched against the path relative to the project. Undefined when absent;
 * null when present but not literal.
 */
function loadFilters(text: string): Array<(rel: string) => boolean> | undefined | null {
  const src = /\btest_load_filters:\s*(\[[^\]]*\])/.exec(text)?.[1];
  if (src === undefined) return /\btest_load_filters:/.test(text) ? null : undefined;
  const out: Array<(rel: string) => boolean> = [];
  let rest = src.slice(1, -1);
  for (const m of rest.matchAll(/~r\/((?:\\.|[^/\\])*)\/|&String\.(ends_with|starts_with)\?\(&1,\s*"([^"]*)"\)/g)) {
    rest = rest.replace(m[0], '');
    if (m[1] !== undefined) {
      const re = projectRegExp(m[1], '', (why) => notePattern(`mix.exs test_load_filters ~r/${m[1]!.slice(0, 80)}/ is not used: ${why}`));
      if (!re) return null;
      out.push((rel) => re.test(rel));
    } else if (m[2] === 'ends_with') out.push((rel) => rel.endsWith(m[3]!));
    else out.push((rel) => rel.startsWith(m[3]!));
  }
  return rest.replace(/[\s,]/g, '') === '' ? out : null;
}

// Module-level: a scan process keeps a rowPerFile counter between scans (with-cases.ts), so it must not hold a scan.
const countExunit = (text: string): number => countMatches(text, CASES);
