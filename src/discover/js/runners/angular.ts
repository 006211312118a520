import { compileGlobs } from '../../../rules/glob.ts';
import { flagValues, positionals } from '../args.ts';
import { jest } from './jest.ts';
import type { RunnerRule } from '../types.ts';
import { joinPath } from '../../../rules/paths.ts';
import { parseJsonc } from '../../../readers/jsonc.ts';

interface Target { builder?: unknown; options?: { include?: unknown; exclude?: unknown; main?: unknown } }
interface Project { root?: unknown; sourceRoot?: unknown; architect?: { test?: Target }; targets?: { test?: Target } }

/**
 * `ng test`: the `test` target of the named project (else of every project) in angular.json. The Karma
 * builders run `include` globs (default `**\/*.spec.ts`) relative to the project root (sourceRoot for
 * the older `main: test.ts` setups, whose require.context takes every spec below it); Jest builders run
 * the Jest rule; any other builder is noted. `--include` on the command line replaces the option.
 */
export const angular: RunnerRule = {
  framework: 'karma',
  async discover(ctx, pkg, inv) {
    const doc = parseJsonc((await pkg.read('angular.json')) ?? 'null') as { projects?: Record<string, Project> } | null | undefined;
    if (!doc?.projects) { ctx.note(`${pkg.dir ? pkg.dir + '/' : ''}angular.json: not found or unreadable; \`ng test\` not followed`); return []; }
    const named = positionals(inv, new Set(['--include', '--karma-config', '--browsers', '-c', '--configuration'])).map((p) => p.arg);
    const out = new Set<string>();
    for (const [name, project] of Object.entries(doc.projects)) {
      if (named.length > 0 && !named.includes(name)) continue;
      const target = project.architect?.test ?? project.targets?.test;
      const builder = typeof target?.builder === 'string' ? target.builder : '';
      const root = typeof project.root === 'string' ? joinPath(project.root) : '';
      if (/jest/.test(builder)) { for (const f of await jest.discover(ctx, pkg, { runner: 'jest', args: [], quoted: [] })) out.add(f); continue; }
      if (!/karma$/.test(builder)) { if (target) ctx.note(`angular.json: project ${name} tests with ${builder || 'an unnamed builder'}, which projdex does not follow`); continue; }
      const opts = target?.options ?? {};
      const cli = flagValues(inv, '--include');
      const include = cli.length > 0 ? cli : Array.isArray(opts.include) ? opts.include.filter((x): x is string => typeof x === 'string') : ['**/*.spec.ts'];
      const base = !Array.isArray(opts.include) && typeof opts.main === 'string' && typeof project.sourceRoot === 'string' ? joinPath(project.sourceRoot) : root;
      const exclude = Array.isArray(opts.exclude) ? opts.exclude.filter((x): x is string => typeof x === 'string') : [];
      const m = compileGlobs([...include.map((g) => joinPath(base, g)), ...exclude.map((g) => '!' + joinPath(base, g))]);
      for (const f of pkg.files) if (m.match(f) && !f.includes('node_modules/')) out.add(f);
    }
    return [...out];
  },
};

/**
 * A Karma builder's files outside angular.json (an Nx project.json target, nx.ts): `--include` globs
 * (default `**\/*.spec.ts`) and `--exclude` globs, relative to the project.
 */
export const karma: RunnerRule = {
  framework: 'karma',
  async discover(_ctx, pkg, inv) {
    const include = flagValues(inv, '--include');
    const m = compileGlobs([...(include.length > 0 ? include : ['**/*.spec.ts']).map((g) => joinPath(g)), ...flagValues(inv, '--exclude').map((g) => '!' + joinPath(g))]);
    return pkg.files.filter((f) => m.match(f) && !f.includes('node_modules/'));
  },
};
