import type { FoundTest, ScanContext } from '../rules/types.ts';
import { withCases } from '../rules/with-cases.ts';
import { countMatches, nearest, under, type FileIndex } from './files.ts';
import { antRegex } from './patterns.ts';
import { jsHostNotRunningBuild, type JsHost } from './jvm-host.ts';
import { parseXml, xmlChildren, xmlFind } from '../readers/xml.ts';
import { basename, dirname, joinPath } from '../rules/paths.ts';

const SURE_INCLUDES = ['**/Test*.java', '**/*Test.java', '**/*Tests.java', '**/*TestCase.java'];
const SURE_EXCLUDES = ['**/*$*'];
const TEST_SOURCES = ['src/test/java', 'src/test/kotlin', 'src/test/groovy'];
const ANNOTATIONS = /@(?:[a-z][\w]*\.)*(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b/g;
const JUNIT3 = /\bvoid\s+test\w*\s*\(/g;
// A class the JUnit/TestNG engines would run: test annotations, or a superclass (tests may be inherited,
// e.g. from an abstract base or a Kotest spec), Java/Groovy `extends` or Kotlin `class X : Base(...)`.
const LOOKS_LIKE_TEST = /@(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate|RunWith|Suite|Nested)\b|\bclass\s+\w+[^{;]*?\bextends\s+\w|\bclass\s+\w+\s*(?:\([^)]*\))?\s*:\s*[A-Z]\w*/;

interface Module { readonly dir: string; readonly kind: 'maven' | 'gradle'; readonly sources: string[]; readonly includes: RegExp[]; readonly excludes: RegExp[] }

/**
 * JUnit/TestNG classes per build module. Maven (`pom.xml`): files under `testSourceDirectory` (default
 * `src/test/java`, plus `src/test/kotlin|groovy`) whose path, with the extension read as `.java`, matches
 * Surefire's `<includes>`/`<excludes>` (defaults `**\/Test*.java`, `**\/*Test.java`, `**\/*Tests.java`,
 * `**\/*TestCase.java`, minus `**\/*$*`). Gradle (`build.gradle[.kts]`): Gradle scans compiled classes, so
 * every file in `src/test/{java,kotlin,groovy}` is a candidate.
 * In both, a matched file must look like a test class (test annotations or a superclass) and not be abstract:
 * Surefire's providers and Gradle's scanner both skip classes with nothing to run. Build files inside `src/`, `target/` or `build/` are ignored.
 * Cases: `@Test`-family annotations, else JUnit 3 `void test*(` methods.
 */
export async function discoverJunit(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  const modules = new Map<string, Module>();
  const skip = (f: string): boolean => /(?:^|\/)(?:src|target|build)\//.test(f);
  for (const pom of index.byName.get('pom.xml') ?? []) {
    if (skip(pom)) continue;
    const dir = dirname(pom);
    const doc = parseXml((await ctx.read(pom)) ?? '');
    const build = xmlChildren(xmlChildren(doc, 'project')[0], 'build')[0];
    const testSrc = xmlChildren(build, 'testSourceDirectory')[0]?.text.replace(/^\$\{(?:project\.)?basedir\}\//, '');
    const surefire = build ? xmlFind(build, 'plugin').find((p) => xmlChildren(p, 'artifactId')[0]?.text === 'maven-surefire-plugin') : undefined;
    const conf = xmlChildren(surefire, 'configuration')[0];
    const list = (outer: string, inner: string): string[] => xmlChildren(xmlChildren(conf, outer)[0], inner).map((e) => e.text).filter(Boolean);
    const includes = list('includes', 'include');
    const excludes = list('excludes', 'exclude');
    if (/\$\{/.test([testSrc ?? '', ...includes, ...excludes].join(''))) ctx.note(`${pom} uses a property in its test settings; read it literally`);
    modules.set(dir, {
      dir, kind: 'maven',
      sources: testSrc ? [testSrc] : TEST_SOURCES,
      includes: (includes.length ? includes : SURE_INCLUDES).flatMap(patterns).map(antRegex),
      excludes: [...SURE_EXCLUDES, ...excludes].flatMap(patterns).map(antRegex),
    });
  }
  for (const name of ['build.gradle', 'build.gradle.kts']) {
    for (const f of index.byName.get(name) ?? []) {
      const dir = dirname(f);
      if (!skip(f) && !modules.has(dir)) modules.set(dir, { dir, kind: 'gradle', sources: TEST_SOURCES, includes: [], excludes: [] });
    }
  }
  if (modules.size === 0) return [];
  const dirs = new Set(modules.keys());
  const hosts = new Map<string, JsHost>();
  for (const dir of dirs) { const h = await jsHostNotRunningBuild(ctx, dir); if (h) hosts.set(dir, h); }
  const leftOut = new Map<string, number>();
  const picked: string[] = [];
  for (const ext of ['java', 'kt', 'groovy']) {
    for (const file of index.byExt.get(ext) ?? []) {
      const mod = modules.get(nearest(dirs, file) ?? '\0');
      if (!mod) continue;
      const rel = under(mod.dir, file)!;
      for (const src of mod.sources) {
        const inSrc = under(joinPath('', src), rel);
        if (inSrc === undefined) continue;
        if (hosts.has(mod.dir)) leftOut.set(mod.dir, (leftOut.get(mod.dir) ?? 0) + 1);
        else if (mod.kind === 'maven') {
          const asJava = inSrc.replace(/\.(?:kt|groovy)$/, '.java');
          if (mod.includes.some((re) => re.test(asJava)) && !mod.excludes.some((re) => re.test(asJava))) picked.push(file);
        } else picked.push(file);
        break;
      }
    }
  }
  for (const [dir, n] of [...leftOut].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const h = hosts.get(dir)!;
    const tool = modules.get(dir)!.kind === 'maven' ? 'Maven' : 'Gradle';
    ctx.note(`${dir}: ${n} file${n === 1 ? '' : 's'} under its ${tool} test sources not listed: the module lies inside the JS package at `
      + `${h.pkgDir === '' ? 'the root' : h.pkgDir}, whose test script (\`${h.command.slice(0, 120)}\`) never starts ${tool}`);
  }
  const found = await withCases(ctx, picked, 'junit', (text, file) => {
    const cls = basename(file).replace(/\.\w+$/, '');
    if (new RegExp(`\\babstract\\s+(?:\\w+\\s+)*class\\s+${cls.replace(/\W/g, '\\$&')}\\b`).test(text)) return -1;
    if (!LOOKS_LIKE_TEST.test(text)) return -1;
    return countMatches(text, ANNOTATIONS) || countMatches(text, JUNIT3);
  });
  // A class with no test methods of its own runs the ones it inherits: count them from the base class's
  // file when the project has it, else the count is unknown.
  const out: FoundTest[] = [];
  for (const t of found) {
    if (t.cases === -1) continue;
    if (t.cases !== 0) { out.push(t); continue; }
    const n = await inheritedCases(ctx, index, t.file, 0);
    out.push(n === undefined ? { file: t.file, framework: 'junit' } : { ...t, cases: n });
  }
  return out;
}

async function inheritedCases(ctx: ScanContext, index: FileIndex, file: string, depth: number): Promise<number | undefined> {
  const text = (await ctx.read(file)) ?? '';
  const base = /\bclass\s+\w+(?:<[^>{]*>)?\s*(?:extends\s+|:\s*)([\w.]+)/.exec(text)?.[1]?.split('.').pop();
  if (base === undefined || depth > 3) return depth === 0 ? undefined : 0;
  const ext = file.slice(file.lastIndexOf('.') + 1);
  const same = joinPath(dirname(file), `${base}.${ext}`);
  const baseFile = ctx.has(same) ? same : (index.byExt.get(ext) ?? []).find((f) => basename(f) === `${base}.${ext}`);
  if (baseFile === undefined) return undefined;
  const own = countMatches((await ctx.read(baseFile)) ?? '', ANNOTATIONS);
  return own + ((await inheritedCases(ctx, index, baseFile, depth + 1)) ?? 0);
}

// Surefire accepts comma-separated lists inside one element, and treats `.class` like `.java`.
function patterns(text: string): string[] {
  return text.split(',').map((p) => p.trim().replace(/\.class$/, '.java')).filter(Boolean);
}

