import type { FoundTest, ScanContext } from '../rules/types.ts';
import { withCases } from '../rules/with-cases.ts';
import { countMatches, type FileIndex } from './files.ts';
import { rubyGlobRegex } from './patterns.ts';
import { parseXml, xmlChildren, xmlFind } from '../readers/xml.ts';
import { basename, dirname, joinPath } from '../rules/paths.ts';

const CONFIGS = ['phpunit.xml', 'phpunit.dist.xml', 'phpunit.xml.dist'];
const CASES = /\bfunction\s+test\w*\s*\(|@test\b|#\[\s*(?:\\?PHPUnit\\Framework\\Attributes\\)?Test\s*\]/g;

interface Rule { readonly dir: RegExp; readonly prefix: string; readonly suffix: string }

/**
 * PHPUnit, per directory holding a config (first of phpunit.xml, phpunit.dist.xml, phpunit.xml.dist;
 * never inside `vendor/`): every `<testsuite>`'s `<directory prefix suffix>` (suffix default `Test.php`,
 * recursive, globs allowed) and `<file>`, minus `<exclude>`, paths relative to the config. Without a
 * config PHPUnit runs nothing. Cases: `function test*(`, `@test` and `#[Test]`; a `.phpt` file is one case.
 */
export async function discoverPhpunit(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  const configDirs = new Set<string>();
  for (const name of CONFIGS) for (const f of index.byName.get(name) ?? []) if (!/(?:^|\/)vendor\//.test(f)) configDirs.add(dirname(f));
  // A config below another config's directory (`tests/_files/phpunit.xml`) is fixture data for the
  // enclosing run, which reaches its files through its own <directory> rules.
  for (const dir of configDirs) if ([...configDirs].some((d) => d !== dir && (d === '' || dir.startsWith(d + '/')))) configDirs.delete(dir);
  const php = [...index.byExt.get('php') ?? [], ...index.byExt.get('phpt') ?? []];
  const picked = new Set<string>();
  for (const dir of configDirs) {
    const file = CONFIGS.map((c) => joinPath(dir, c)).find((c) => ctx.has(c))!;
    const doc = parseXml((await ctx.read(file)) ?? '');
    const rules: Rule[] = [];
    const files = new Set<string>();
    const excluded: RegExp[] = [];
    for (const suite of xmlFind(doc, 'testsuite')) {
      for (const d of xmlChildren(suite, 'directory')) {
        if (!d.text) continue;
        rules.push({ dir: rubyGlobRegex(joinPath(dir, d.text)), prefix: d.attrs.prefix ?? '', suffix: d.attrs.suffix ?? 'Test.php' });
      }
      for (const f of xmlChildren(suite, 'file')) if (f.text) files.add(joinPath(dir, f.text));
      for (const e of xmlChildren(suite, 'exclude')) if (e.text) excluded.push(rubyGlobRegex(joinPath(dir, e.text) + '{,/**/*}'));
    }
    for (const f of files) if (ctx.has(f)) picked.add(f);
    if (rules.length === 0) continue;
    for (const f of php) {
      if (dir !== '' && !f.startsWith(dir + '/')) continue;
      const name = basename(f);
      if (excluded.some((re) => re.test(f))) continue;
      // Walk up the file's directories to find a <directory> it lies under.
      for (let d = dirname(f); ; d = dirname(d)) {
        if (rules.some((r) => r.dir.test(d) && name.endsWith(r.suffix) && name.startsWith(r.prefix))) { picked.add(f); break; }
        if (d === '' || d === dir) break;
      }
    }
  }
  if (configDirs.size === 0 && /"phpunit\/phpunit"/.test((await ctx.read('composer.json')) ?? '')) {
    ctx.note('composer.json requires phpunit/phpunit but there is no phpunit.xml(.dist): PHPUnit runs nothing without a config or arguments');
  }
  return withCases(ctx, picked, 'phpunit', countPhpunit, { rowPerFile: true });
}

// Module-level: a scan process keeps a rowPerFile counter between scans (with-cases.ts), so it must not hold a scan.
const countPhpunit = (text: string, file: string): number => (file.endsWith('.phpt') ? 1 : countMatches(text, CASES));
