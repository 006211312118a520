import type { ScanContext } from '../rules/types.ts';
import { dirname } from '../rules/paths.ts';

/**
 * A JVM build module that lives inside a JavaScript package (a React Native library's `android/`, an
 * example app's `example/android/`): its unit tests are tests of the project's command only where that
 * command starts the build tool. A package whose test script (with the scripts it names and the script
 * files they run) never names Gradle or Maven runs none of them; a sibling `test:android` script is
 * another command. Left alone: a package without a real test script (what
 * runs is then not known from its scripts), and one that is itself a JVM build.
 */
export interface JsHost { readonly pkgDir: string; readonly command: string }

const PLACEHOLDER = /no test specified/;
// A JS package that is itself a JVM build (a Java project with a package.json for its tooling) hosts nothing.
const JVM_BUILD = ['pom.xml', 'build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts'];
const BUILD_TOOL = /(^|[\s/;&|(`'"])(gradlew?|mvnw?)(\.bat)?([\s`'"]|$)/;
const MAX_SCRIPTS = 32;

/** The JS package holding `moduleDir` whose test command never starts Gradle or Maven, if there is one. */
export async function jsHostNotRunningBuild(ctx: ScanContext, moduleDir: string): Promise<JsHost | undefined> {
  if (moduleDir === '') return undefined;
  for (let d = dirname(moduleDir); ; d = dirname(d)) {
    const file = d === '' ? 'package.json' : `${d}/package.json`;
    if (ctx.has(file)) return JVM_BUILD.some((b) => ctx.has(d === '' ? b : `${d}/${b}`)) ? undefined : host(ctx, d, file);
    if (d === '') return undefined;
  }
}

async function host(ctx: ScanContext, pkgDir: string, file: string): Promise<JsHost | undefined> {
  let scripts: unknown;
  try { scripts = (JSON.parse((await ctx.read(file)) ?? '{}') as { scripts?: unknown }).scripts; } catch { return undefined; }
  if (!scripts || typeof scripts !== 'object') return undefined;
  const all = scripts as Record<string, unknown>;
  const test = all.test;
  if (typeof test !== 'string' || PLACEHOLDER.test(test)) return undefined;
  // The test script, the scripts it names (`npm run android:unit`, a few levels down) and the script files
  // they run (comments left out): does any start the build tool?
  const texts: string[] = [];
  const queue = ['test'];
  const seen = new Set<string>();
  while (queue.length > 0 && seen.size < MAX_SCRIPTS) {
    const name = queue.shift()!;
    const text = all[name];
    if (seen.has(name) || typeof text !== 'string') continue;
    seen.add(name);
    texts.push(text);
    for (const word of text.split(/[\s;&|'"()]+/)) if (word !== name && typeof all[word] === 'string') queue.push(word);
  }
  for (const text of [...texts]) {
    for (const word of text.split(/[\s;&|'"()]+/)) {
      const path = scriptFile(pkgDir, word);
      if (path === undefined) continue;
      const body = (await ctx.read(path)) ?? (await ctx.read(path + '.js'));
      if (body !== undefined) texts.push(body.split('\n').filter((l) => !/^\s*(\/\/|#|\*)/.test(l)).join('\n'));
    }
  }
  if (texts.some((text) => BUILD_TOOL.test(text))) return undefined;
  return { pkgDir, command: test };
}

/** A script file a command word names (`scripts/test`, `./ci.sh`), project-relative; undefined for other words. */
function scriptFile(pkgDir: string, word: string): string | undefined {
  if (!/^(\.\/)?[\w.-]+(\/[\w.-]+)+$|^\.\/[\w.-]+$|\.(?:[cm]?js|ts|sh)$/.test(word) || word.includes('..')) return undefined;
  const rel = word.replace(/^\.\//, '');
  return pkgDir === '' ? rel : `${pkgDir}/${rel}`;
}
