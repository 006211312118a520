import type { FoundTest, ScanContext } from '../../scan/types.ts';
import { withCases } from '../../scan/with-cases.ts';
import { countMatches, nearest, under, type FileIndex } from './files.ts';
import { fnmatchRegex } from './patterns.ts';
import { basename, dirname, joinPath } from '../../scan/paths.ts';

const CASES = /^\s*(?:test|property)\s*\(?\s*["']/gm;

/**
 * ExUnit, per Mix project (`mix.exs` outside `deps/` and `_build/`): files below each literal
 * `test_paths` entry (default `test`) whose basename matches the literal `test_pattern` (default
 * `*_test.exs`). An umbrella root (`apps_path:`) runs only its apps' tests. Computed values fall back
 * to the defaults, with a note. Cases: `test "..."` and `property "..."`.
 */
export async function discoverExunit(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  const projects = new Map<string, { paths: string[]; pattern: RegExp }>();
  for (const mix of index.byName.get('mix.exs') ?? []) {
    if (/(?:^|\/)(?:deps|_build)\//.test(mix)) continue;
    const text = (await ctx.read(mix)) ?? '';
    const dir = dirname(mix);
    if (/\bapps_path:/.test(text)) { projects.set(dir, { paths: [], pattern: /(?!)/ }); continue; }
    const pathsSrc = /\btest_paths:\s*(\[[^\]]*\]|[^\n,]+)/.exec(text)?.[1];
    const patternSrc = /\btest_pattern:\s*([^\n,]+)/.exec(text)?.[1];
    const literal = (src: string | undefined): string[] | undefined => {
      if (src === undefined) return undefined;
      const strings = [...src.matchAll(/"([^"#]*)"/g)].map((m) => m[1]!);
      return strings.length > 0 && /^\[?\s*(?:"[^"#]*"\s*,?\s*)+\]?\s*$/.test(src.trim()) ? strings : undefined;
    };
    const paths = literal(pathsSrc);
    const pattern = literal(patternSrc)?.[0];
    if ((pathsSrc && !paths) || (patternSrc && !pattern)) ctx.note(`${mix}: test_paths/test_pattern is computed; used the defaults`);
    projects.set(dir, { paths: (paths ?? ['test']).map((p) => joinPath(dir, p)), pattern: fnmatchRegex(pattern ?? '*_test.exs') });
  }
  if (projects.size === 0) return [];
  const dirs = new Set(projects.keys());
  const picked: string[] = [];
  for (const file of index.byExt.get('exs') ?? []) {
    const project = projects.get(nearest(dirs, file) ?? '\0');
    if (project && project.pattern.test(basename(file)) && project.paths.some((p) => under(p, file) !== undefined)) picked.push(file);
  }
  return withCases(ctx, picked, 'exunit', (text) => countMatches(text, CASES));
}
