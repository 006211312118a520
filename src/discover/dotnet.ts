import type { FoundTest, ScanContext } from '../rules/types.ts';
import { withCases } from '../rules/with-cases.ts';
import { countMatches, nearest, type FileIndex } from './files.ts';
import { dirname } from '../rules/paths.ts';

const PROJECT_EXT = ['csproj', 'fsproj', 'vbproj'];
const SOURCE_EXT: Record<string, string> = { csproj: 'cs', fsproj: 'fs', vbproj: 'vb' };
const MARKERS = /<IsTestProject>\s*true\s*<\/IsTestProject>|Include\s*=\s*"(?:Microsoft\.NET\.Test\.Sdk|xunit(?:\.v3)?|NUnit|MSTest(?:\.TestFramework)?|TUnit)"|Sdk\s*=\s*"MSTest\.Sdk/i;
const CASES = /\[<?\s*(?:Fact|Theory|Test|TestMethod|DataTestMethod|TestCase|TestCaseSource)\b/g;

/**
 * .NET test projects: a `*.csproj`/`*.fsproj`/`*.vbproj` that sets `<IsTestProject>true`, references the
 * Test SDK or a test framework package, uses `MSTest.Sdk`, or sits below a `Directory.Build.props` that
 * does. Every source file of the project's language below its directory (not under `bin/`, `obj/` or a
 * nested project) is a test file. `<Compile Remove>` is not read. Cases: `[Fact]`, `[Theory]`, `[Test]`,
 * `[TestMethod]`, `[TestCase]` attributes (F# `[<Test>]` too). [doc; not verified against `dotnet test --list-tests`]
 */
export async function discoverDotnet(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  const projects = PROJECT_EXT.flatMap((ext) => index.byExt.get(ext) ?? []);
  if (projects.length === 0) return [];
  const props = new Set<string>();
  for (const name of ['Directory.Build.props', 'Directory.Build.targets', 'Directory.Packages.props']) {
    for (const f of index.byName.get(name) ?? []) if (MARKERS.test((await ctx.read(f)) ?? '')) props.add(dirname(f));
  }
  const allDirs = new Set(projects.map(dirname));
  const testDirs = new Map<string, string>();
  for (const project of projects) {
    const dir = dirname(project);
    if (MARKERS.test((await ctx.read(project)) ?? '') || nearest(props, project) !== undefined) {
      testDirs.set(dir, SOURCE_EXT[project.slice(project.lastIndexOf('.') + 1)]!);
    }
  }
  const picked: string[] = [];
  for (const ext of new Set(testDirs.values())) {
    for (const file of index.byExt.get(ext) ?? []) {
      const owner = nearest(allDirs, file);
      if (owner === undefined || testDirs.get(owner) !== ext) continue;
      const rel = owner === '' ? file : file.slice(owner.length + 1);
      if (!/^(?:bin|obj)\//.test(rel)) picked.push(file);
    }
  }
  return withCases(ctx, picked, 'dotnet', countDotnet, { rowPerFile: true });
}

// Module-level: a scan process keeps a rowPerFile counter between scans (with-cases.ts), so it must not hold a scan.
const countDotnet = (text: string): number => countMatches(text, CASES);
