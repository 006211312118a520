import { compileGlobs } from '../../../rules/glob.ts';
import { positionals, shellExpand } from '../args.ts';
import type { RunnerRule } from '../types.ts';
import { joinPath } from '../../../rules/paths.ts';

const PATTERN_22 = '**/{test,test/**/*,test-*,*[._-]test}.{js,mjs,cjs,ts,mts,cts}';
const NAME_20 = /((^test(-.+)?)|(.+[.\-_]test))\.[cm]?js$/;

/**
 * `node --test`: Node 22+ globs `**\/{test,test/**\/*,test-*,*[._-]test}.{js,mjs,cjs,ts,mts,cts}` (no
 * dotfiles, node_modules excluded); positional arguments are globs whose matches all run. Node 18/20
 * (from `engines.node`, `.nvmrc` or `.node-version`) walk recursively, take any JS under a `test` dir or
 * a `test`-named basename, dotfiles included, and search directory arguments.
 */
export const nodeTest: RunnerRule = {
  framework: 'node-test',
  async discover(ctx, pkg, inv) {
    const major = await nodeMajor(pkg);
    const args = positionals(inv, new Set()).flatMap((p) => shellExpand(pkg, p.arg, p.quoted));
    if (major !== null && major <= 20) {
      const roots = args.length > 0 ? args.map((a) => joinPath(a)) : [''];
      const out = new Set<string>();
      for (const r of roots) {
        if (pkg.has(r)) { out.add(r); continue; }
        const prefix = r === '' ? '' : r + '/';
        for (const f of pkg.files) {
          if (!f.startsWith(prefix)) continue;
          const name = f.slice(f.lastIndexOf('/') + 1);
          if (/\.[cm]?js$/.test(name) && (NAME_20.test(name) || ('/' + f).includes('/test/'))) out.add(f);
        }
      }
      return [...out];
    }
    if (args.length === 0) {
      const m = compileGlobs([PATTERN_22]);
      return pkg.files.filter((f) => m.match(f));
    }
    const m = compileGlobs(args.map((a) => joinPath(a)));
    const hits = pkg.files.filter((f) => m.match(f));
    if (args.some((a) => pkg.dirs.has(joinPath(a)))) ctx.note('node --test: a directory argument is run as a file by Node 22+, not searched');
    return hits;
  },
};

async function nodeMajor(pkg: { json: Record<string, unknown>; read(rel: string): Promise<string | undefined> }): Promise<number | null> {
  for (const f of ['.nvmrc', '.node-version']) {
    const m = /(\d+)/.exec((await pkg.read(f)) ?? '');
    if (m) return Number(m[1]);
  }
  const engines = pkg.json.engines as { node?: unknown } | undefined;
  const m = typeof engines?.node === 'string' ? /(\d+)/.exec(engines.node) : null;
  // `>=18` says the package still supports 18, not that it is run on 18: only an exact pin counts.
  return m && /^[\s^~=v]*\d/.test(engines!.node as string) ? Number(m[1]) : null;
}
