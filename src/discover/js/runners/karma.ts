// Karma: https://karma-runner.github.io/latest/config/configuration-file.html (`files`, `exclude`, `basePath`)
// and https://karma-runner.github.io/latest/config/files.html (patterns, `included`).
import type { ScanContext } from '../../../rules/types.ts';
import { compileGlobs } from '../../../rules/glob.ts';
import { positionals } from '../args.ts';
import { firstExisting, readConfigValue, where } from '../config/config.ts';
import { isObject, type Lit } from '../../../readers/js/literal.ts';
import { native } from '../../../readers/js/values.ts';
import type { Pkg, RunnerRule } from '../types.ts';
import { dirname, joinPath } from '../../../rules/paths.ts';

/** Where `karma start` looks for its config when none is named (karma's cli). */
const CONFIG_NAMES = ['karma.conf.js', 'karma.conf.coffee', 'karma.conf.ts',
  '.config/karma.conf.js', '.config/karma.conf.coffee', '.config/karma.conf.ts'];
const VALUE_FLAGS = new Set(['--port', '--browsers', '--reporters', '--log-level', '--format-error', '--grep',
  '--listen-address', '--hostname']);
const SCRIPT = /\.(?:[cm]?[jt]sx?|coffee)$/;
// Karma loads sources, libraries and setup files the same way as tests. A glob counts when it names a test
// or spec outside vendor, setup, helper and fixture directories; a single file when its own name does.
const TEST_WORD = /test|spec/i;
const NOT_TESTS = /(^|\/)(vendors?|setup|helpers?|fixtures?|support|libs?|node_modules|dist|build)(\/|$)/i;
const isTestPattern = (p: string): boolean => !NOT_TESTS.test(p)
  && (/[*?[{]/.test(p) ? TEST_WORD.test(p) : TEST_WORD.test(p.slice(p.lastIndexOf('/') + 1)));

/**
 * `karma start [config]`: the files its `files` patterns load into the browser (`included` not false),
 * from `basePath` (the config's directory by default), minus `exclude`. Karma's config is a function
 * handed a `config` object: it is called with one whose `set` records what it is given (merged, arrays
 * replaced). Of the loaded scripts, only patterns naming a test or spec count (outside vendor, setup,
 * helper and fixture directories; a single file by its own name); the rest (sources, built bundles,
 * libraries, setup files, a bundler's entry file) are noted as left out.
 */
export const karmaStart: RunnerRule = {
  framework: 'karma',
  async discover(ctx, pkg, inv) {
    const named = positionals(inv, VALUE_FLAGS).map((p) => p.arg)[0];
    const file = named !== undefined ? joinPath(named) : firstExisting(pkg, '', CONFIG_NAMES);
    if (file === undefined || !pkg.has(file)) {
      ctx.note(`${where(pkg, named ?? 'karma.conf.js')}: no Karma config found; \`karma start\` lists nothing without one`);
      return [];
    }
    const set = readSettings(await karmaSettings(ctx, pkg, file));
    const source = where(pkg, file);
    if (!set) { ctx.note(`${source}: Karma's \`files\` could not be read statically; nothing listed`); return []; }
    if (set.computed > 0) {
      const one = set.computed === 1;
      ctx.note(`${source}: ${set.computed} \`files\` pattern${one ? ' is' : 's are'} computed; what ${one ? 'it loads' : 'they load'} is not listed`);
    }
    const base = joinPath(dirname(file), set.basePath ?? '');
    const tests = set.files.filter(isTestPattern);
    const others = set.files.filter((p) => !isTestPattern(p));
    if (others.length > 0) {
      const more = others.length > 4 ? ` and ${others.length - 4} more` : '';
      ctx.note(`${source}: loaded files read as sources, libraries or setup, not tests: ${others.slice(0, 4).join(', ')}${more}`);
    }
    const match = compileGlobs(tests.map((p) => joinPath(base, p)));
    const skip = compileGlobs(set.exclude.map((p) => joinPath(base, p)));
    return pkg.files.filter((f) => SCRIPT.test(f) && !f.includes('node_modules/') && match.match(f) && !skip.match(f));
  },
};

/** The settings `config.set(...)` was called with, merged in call order (arrays replaced, as Karma does). */
async function karmaSettings(ctx: ScanContext, pkg: Pkg, file: string): Promise<Lit | undefined> {
  const calls: Lit[] = [];
  const record = native('config.set', (args) => { if (args[0] !== undefined) calls.push(args[0]); return undefined; });
  const config = { set: record, LOG_DISABLE: 'OFF', LOG_ERROR: 'ERROR', LOG_WARN: 'WARN', LOG_INFO: 'INFO', LOG_DEBUG: 'DEBUG' };
  const exported = await readConfigValue(ctx, pkg, file, { exportArgs: [config] });
  // An object exported as it is (no function) is the settings themselves.
  if (calls.length === 0) return exported;
  const merged: { [key: string]: Lit } = {};
  for (const c of calls) if (isObject(c)) Object.assign(merged, c);
  return merged;
}

/** `files` (strings or `{ pattern, included }`), `exclude` and `basePath`, when all are literal. */
interface Settings { files: string[]; exclude: string[]; computed: number; basePath?: string }

function readSettings(value: Lit | undefined): Settings | undefined {
  if (!isObject(value) || !Array.isArray(value.files)) return undefined;
  const files: string[] = [];
  let computed = 0;
  for (const f of value.files) {
    if (typeof f === 'string') files.push(f);
    else if (isObject(f) && typeof f.pattern === 'string') { if (f.included !== false) files.push(f.pattern); }
    else if (!(isObject(f) && f.included === false)) computed++;
  }
  const exclude = Array.isArray(value.exclude) ? value.exclude.filter((x): x is string => typeof x === 'string') : [];
  const basePath = typeof value.basePath === 'string' ? value.basePath : undefined;
  return basePath === undefined ? { files, exclude, computed } : { files, exclude, computed, basePath };
}
