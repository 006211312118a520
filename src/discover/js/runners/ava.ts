import { compileGlobs } from '../../../rules/glob.ts';
import { positionals, shellExpand } from '../args.ts';
import { firstExisting, readConfigFile, stringList, where } from '../config/config.ts';
import { getKey, isObject, type Lit } from '../../../readers/js/literal.ts';
import { depsOf, majorOf, type RunnerRule } from '../types.ts';

const IGNORED_DIRS = new Set(['.git', '.log', '.nyc_output', '.sass-cache', '.yarn', 'bower_components', 'coverage', 'node_modules']);
const HELPERS = ['!**/__tests__/**/__{helper,fixture}?(s)__/**/*', '!**/test?(s)/**/{helper,fixture}?(s)/**/*'];

/**
 * AVA: `files` from package.json `ava` or `ava.config.*` (replacing the defaults unless every entry
 * is a `!` negation), case-insensitive, no dot files; basenames and parent dirs starting with `_`,
 * helper/fixture dirs and the ignore-by-default dirs are dropped. Extensions default to js,cjs,mjs
 * (AVA 8: mjs,js). Positional CLI arguments replace `files`.
 */
export const ava: RunnerRule = {
  framework: 'ava',
  async discover(ctx, pkg, inv) {
    const file = firstExisting(pkg, '', ['ava.config.js', 'ava.config.cjs', 'ava.config.mjs']);
    const config: Lit | undefined = file ? await readConfigFile(ctx, pkg, file) : (pkg.json.ava as Lit | undefined);
    const source = file ? where(pkg, file) : where(pkg, 'package.json');
    const extValue = getKey(config, 'extensions').value;
    const exts = Array.isArray(extValue) ? extValue.filter((e): e is string => typeof e === 'string')
      : isObject(extValue) ? Object.keys(extValue)
      : (majorOf(depsOf(pkg.json).ava) ?? 6) >= 8 ? ['mjs', 'js'] : ['js', 'cjs', 'mjs'];
    const E = exts.length === 1 ? exts[0]! : `{${exts.join(',')}}`;
    const defaults = [`test.${E}`, `{src,source}/test.${E}`, `**/__tests__/**/*.${E}`, `**/*.spec.${E}`, `**/*.test.${E}`,
      `**/test-*.${E}`, `**/test/**/*.${E}`, `**/tests/**/*.${E}`];
    const cli = positionals(inv, new Set(['--match', '-m', '--timeout', '-T', '--concurrency', '-c', '--tap', '--node-arguments', '--config']))
      .flatMap((p) => shellExpand(pkg, p.arg, p.quoted));
    let files = cli.length > 0 ? cli : stringList(ctx, config, 'files', source) ?? defaults;
    if (files.every((f) => f.startsWith('!'))) files = [...defaults, ...files];
    const m = compileGlobs([...files.map((f) => f.replace(/^(!?)\.\//, '$1')), ...HELPERS], { nocase: true });
    const extOk = new RegExp(`\\.(?:${exts.map((e) => e.replace(/\W/g, '\\$&')).join('|')})$`, 'i');
    return pkg.files.filter((f) => {
      const segs = f.split('/');
      if (segs.some((s, i) => (i < segs.length - 1 && IGNORED_DIRS.has(s)) || s.startsWith('_') && !s.startsWith('__'))) return false;
      return extOk.test(f) && m.match(f);
    });
  },
};
