import type { ScanContext } from '../rules/types.ts';
import { dirname } from '../rules/paths.ts';

/**
 * A JVM build module that lives inside a JavaScript package (a React Native library's `android/`, an
 * example app's `example/android/`): its unit tests are tests of the project's command only where that
 * command starts the build tool. A package whose test script (and every `test*` script beside it)
 * never names Gradle or Maven runs none of them. Left alone: a package without a real test script (what
 * runs is then not known from its scripts), and one that is itself a JVM build.
 */
export interface JsHost { readonly pkgDir: string; readonly command: string }

const PLACEHOLDER = /no test specified/;
// A JS package that is itself a JVM build (a Java project with a package.json for its tooling) hosts nothing.
const JVM_BUILD = ['pom.xml', 'build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts'];
const BUILD_TOOL = /(^|[\s/;&|(])(gradlew?|mvnw?)(\.bat)?(\s|$)/;

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
  const texts = Object.entries(all).filter((e): e is [string, string] => typeof e[1] === 'string');
  const testTexts = texts.filter(([name]) => /^test([:\-_.]|$)/.test(name)).map(([, text]) => text);
  // One step further: the scripts those name (`npm run android:unit`, `run-s test:*` aside).
  const named = texts.filter(([name]) => testTexts.some((t) => t.split(/[\s;&|'"]+/).includes(name))).map(([, text]) => text);
  if ([...testTexts, ...named].some((text) => BUILD_TOOL.test(text))) return undefined;
  return { pkgDir, command: test };
}
