/**
 * Jest `preset`, applied as jest-config's setupPreset does (jest 29.7 build/normalize.js):
 * - the preset is `<preset>/jest-preset` with extension .json, .js, .cjs or .mjs, resolved like a module
 *   from the config's rootDir (a relative preset, `./x.js`, is that file from rootDir; `<rootDir>/x` is
 *   directory x holding a jest-preset file);
 * - merged shallowly, the config's keys winning (`{...preset, ...config}`), except
 *   `modulePathIgnorePatterns`, which are concatenated (preset first) when both set it; the preset's
 *   `rootDir` never applies (the config's is set before the merge), so `<rootDir>` in a preset's patterns
 *   is the config's rootDir.
 * Where it comes from, in order: the installed file (node_modules, read statically), else built-in
 * knowledge (presets-known.ts), else Jest's defaults; each case is a note.
 */
import type { ScanContext } from '../../../rules/types.ts';
import { isComputed, isObject, type Lit } from '../../../readers/js/literal.ts';
import { configValue, type ConfigObject } from '../config/config.ts';
import { readFile, resolvePackage, type ResolvedFile } from '../packages/resolve.ts';
import { knownJestPreset } from '../config/presets.ts';
import type { Pkg } from '../types.ts';
import { joinPath } from '../../../rules/paths.ts';

const EXTENSIONS = ['.json', '.js', '.cjs', '.mjs'];
const DISCOVERY_KEYS = ['testMatch', 'testRegex', 'roots', 'testPathIgnorePatterns', 'modulePathIgnorePatterns', 'moduleFileExtensions', 'projects'];

/**
 * `config` with its preset merged in. `rootDir` is the config's rootDir, package-relative; `source`
 * names the config in notes.
 */
export async function withPreset(ctx: ScanContext, pkg: Pkg, config: ConfigObject, rootDir: string, source: string): Promise<ConfigObject> {
  const name = config.preset;
  if (name === undefined || name === null) return config;
  if (typeof name !== 'string') {
    ctx.note(`${source}: \`preset\` is computed; assumed it sets no testMatch/roots (Jest's defaults)`);
    return config;
  }
  const base = joinPath(pkg.dir, rootDir);
  const written = name.replaceAll('<rootDir>', base === '' ? '.' : base);
  if (climbs(written.startsWith('.') ? `${base}/${written}` : written)) {
    ctx.note(`${source}: preset ${name} lies outside the project, which projdex does not read; assumed it sets no testMatch/roots (Jest's defaults)`);
    return config;
  }
  const found = await findPreset(ctx, name, base);
  const known = knownJestPreset(name);
  let preset: ConfigObject | undefined;
  if (found) {
    // What the static read met on the way is worth saying only when its value is used (or nothing better).
    const met: string[] = [];
    const value = await configValue(ctx, found.text, found.path, found.path.replace(/\/[^/]*$/, ''), found.path, (m) => met.push(m));
    if (isObject(value) && DISCOVERY_KEYS.every((k) => !isComputed(value[k]))) {
      preset = value as ConfigObject;
      for (const m of met) ctx.note(m);
      ctx.note(`${source}: preset ${name} read from ${found.path}`);
    } else if (known) {
      preset = known.config;
      ctx.note(`${source}: preset ${name} at ${found.path} computes its values at run time; used built-in knowledge of ${known.from}`);
    } else {
      for (const m of met) ctx.note(m);
      ctx.note(`${source}: preset ${name} at ${found.path} could not be read statically; assumed it sets no testMatch/roots (Jest's defaults)`);
    }
  } else if (known) {
    preset = known.config;
    ctx.note(`${source}: preset ${name} is not installed; used built-in knowledge of ${known.from}`);
  } else {
    ctx.note(`${source}: preset ${name} is neither installed nor known to projdex; assumed it sets no testMatch/roots (Jest's defaults)`);
  }
  return preset ? merge(preset, config) : config;
}

function merge(preset: ConfigObject, config: ConfigObject): ConfigObject {
  const { rootDir: _ignored, ...rest } = preset;
  const out: ConfigObject = { ...rest, ...config };
  const a = preset.modulePathIgnorePatterns;
  const b = config.modulePathIgnorePatterns;
  if (Array.isArray(a) && Array.isArray(b)) out.modulePathIgnorePatterns = [...a, ...b] as Lit;
  return out;
}

/** The preset's file, as Jest's resolver finds it from `base` (project-relative rootDir). */
async function findPreset(ctx: ScanContext, name: string, base: string): Promise<ResolvedFile | undefined> {
  let path = name.replaceAll('<rootDir>', base === '' ? '.' : base);
  if (name.startsWith('<rootDir>')) path = joinPath(path, 'jest-preset');
  else if (path.startsWith('.')) path = joinPath(base, path);
  else return resolvePackage(ctx, `${path.replace(/\/+$/, '')}/jest-preset`, base, { extensions: EXTENSIONS, conditions: ['require', 'node'] });
  // A path inside the project: the file itself, then with each extension.
  for (const ext of ['', ...EXTENSIONS]) {
    const hit = await readFile(ctx, path + ext);
    if (hit) return hit;
  }
  return undefined;
}

/** Whether a relative path goes above its start (`a/../../x`): joinPath would quietly stop at the root. */
function climbs(path: string): boolean {
  let depth = 0;
  for (const seg of path.split('/')) {
    if (seg === '..') { if (--depth < 0) return true; } else if (seg !== '' && seg !== '.') depth++;
  }
  return false;
}
