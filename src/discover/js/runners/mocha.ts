import { compileGlobs, isGlob } from '../../../rules/glob.ts';
import { flagValues, hasFlag, positionals, shellExpand } from '../args.ts';
import { boolKey, firstExisting, readConfigFile, stringList, where } from '../config/config.ts';
import type { Lit } from '../../../readers/js/literal.ts';
import type { Pkg, RunnerRule } from '../types.ts';
import { dirname, joinPath } from '../../../rules/paths.ts';

const RC = ['.mocharc.cjs', '.mocharc.js', '.mocharc.mjs', '.mocharc.yaml', '.mocharc.yml', '.mocharc.jsonc', '.mocharc.json'];
const VALUE_FLAGS = new Set(['--config', '--package', '--spec', '--extension', '--ignore', '--exclude', '--file', '-r', '--require', '--reporter', '-R',
  '--timeout', '-t', '--grep', '-g', '--fgrep', '-f', '--ui', '-u', '--slow', '-s', '--retries', '--jobs', '-j', '--reporter-option', '-O', '--node-option', '-n', '--loader']);

/**
 * Mocha: each spec (default `test`) resolves as a directory (its direct files with an `extension`,
 * no dotfiles; subdirectories only with `recursive`), a file, a glob, or `p` + `.js/.cjs/.mjs`.
 * CLI > `.mocharc.*` (found upward) > package.json `mocha`; positional specs join the configured ones.
 */
export const mocha: RunnerRule = {
  framework: 'mocha',
  async discover(ctx, pkg, inv) {
    const rcFile = flagValues(inv, '--config')[0] ?? findUp(pkg);
    const rc = rcFile ? await readConfigFile(ctx, pkg, rcFile) : undefined;
    const source = rcFile ? where(pkg, rcFile) : where(pkg, 'package.json');
    const fromPkg = pkg.json.mocha as Lit | undefined;
    const get = (key: string): string[] | undefined => stringList(ctx, rc, key, source) ?? stringList(ctx, fromPkg, key, where(pkg, 'package.json'));
    const cliSpec = flagValues(inv, '--spec');
    const positional = positionals(inv, VALUE_FLAGS).flatMap((p) => shellExpand(pkg, p.arg, p.quoted));
    let specs = [...positional, ...(cliSpec.length > 0 ? cliSpec : get('spec') ?? [])];
    if (specs.length === 0) specs = ['test'];
    const extList = flagValues(inv, '--extension');
    const exts = (extList.length > 0 ? extList : get('extension') ?? ['js', 'cjs', 'mjs']).map((e) => e.replace(/^\./, ''));
    const recursive = hasFlag(inv, '--recursive') || (boolKey(ctx, rc, 'recursive', source) ?? boolKey(ctx, fromPkg, 'recursive', source) ?? false);
    const ignore = [...flagValues(inv, '--ignore', '--exclude'), ...(get('ignore') ?? get('exclude') ?? [])];
    const files = new Set<string>([...flagValues(inv, '--file'), ...(get('file') ?? [])].map((f) => joinPath(f)).filter((f) => pkg.has(f)));
    for (const spec of specs) for (const f of lookup(pkg, joinPath(spec), spec, exts, recursive)) files.add(f);
    const skip = compileGlobs(ignore.map((g) => joinPath(g)));
    return [...files].filter((f) => !skip.match(f));
  },
};

function findUp(pkg: Pkg): string | undefined {
  return firstExisting(pkg, '', RC);
}

function lookup(pkg: Pkg, path: string, raw: string, exts: string[], recursive: boolean): string[] {
  if (isGlob(raw)) {
    const m = compileGlobs([path]);
    return pkg.files.filter((f) => m.match(f));
  }
  if (pkg.dirs.has(path) || path === '') {
    const prefix = path === '' ? '' : path + '/';
    return pkg.files.filter((f) => {
      if (!f.startsWith(prefix)) return false;
      const name = f.slice(f.lastIndexOf('/') + 1);
      if (name.startsWith('.') || !exts.some((e) => name.endsWith('.' + e))) return false;
      return recursive || dirname(f) === path;
    });
  }
  if (pkg.has(path)) return [path];
  return ['js', 'cjs', 'mjs'].map((e) => `${path}.${e}`).filter((f) => pkg.has(f));
}

