import type { FoundTest, ScanContext } from '../rules/types.ts';
import { withCases } from '../rules/with-cases.ts';
import { countMatches, type FileIndex } from './files.ts';
import { rubyGlobRegex } from './patterns.ts';
import { parseXml, xmlChildren, xmlFind } from '../readers/xml.ts';
import { basename, dirname, joinPath } from '../rules/paths.ts';
import { parseShell } from '../readers/shell/parse.ts';
import { ciLines, type CommandLine } from './ci-lines.ts';
import { followTasks } from './task-files.ts';

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
  const configs = new Map([...configDirs].map((dir) => [CONFIGS.map((c) => joinPath(dir, c)).find((c) => ctx.has(c))!, dir]));
  // Every config a project's own phpunit command reaches counts too, nested or oddly named.
  const php = [...index.byExt.get('php') ?? [], ...index.byExt.get('phpt') ?? []];
  // A project without PHP files has no PHPUnit run to look for in its CI.
  if (php.length > 0) for (const file of await reachedConfigs(ctx)) if (!configs.has(file)) configs.set(file, dirname(file));
  const picked = new Set<string>();
  for (const [file, dir] of configs) {
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
      const name = basename(f);
      if (excluded.some((re) => re.test(f))) continue;
      // Walk up the file's directories to find a <directory> it lies under.
      for (let d = dirname(f); ; d = dirname(d)) {
        if (rules.some((r) => r.dir.test(d) && name.endsWith(r.suffix) && name.startsWith(r.prefix))) { picked.add(f); break; }
        // A config may reach outside its directory (`<directory>../../../tests</directory>`).
        if (d === '') break;
      }
    }
  }
  if (configs.size === 0 && /"phpunit\/phpunit"/.test((await ctx.read('composer.json')) ?? '')) {
    ctx.note('composer.json requires phpunit/phpunit but there is no phpunit.xml(.dist): PHPUnit runs nothing without a config or arguments');
  }
  return withCases(ctx, picked, 'phpunit', countPhpunit, { rowPerFile: true });
}

/**
 * The config files the project's phpunit runs use: `phpunit` lines of CI (through make/just/task targets)
 * and of composer.json `scripts` named for tests, with `-c`/`--configuration` (a file, or a directory
 * holding one) or the config of the directory it runs in (`cd dir &&`, a step's `working-directory`).
 */
async function reachedConfigs(ctx: ScanContext): Promise<string[]> {
  const lines: CommandLine[] = [...await ciLines(ctx)];
  const composer = ctx.has('composer.json') ? await ctx.readJson('composer.json') : undefined;
  const scripts = composer && typeof composer === 'object' && 'scripts' in composer ? (composer as { scripts: unknown }).scripts : undefined;
  for (const [name, value] of Object.entries(scripts && typeof scripts === 'object' ? scripts : {})) {
    if (!/test/i.test(name)) continue;
    for (const line of typeof value === 'string' ? [value] : Array.isArray(value) ? value : []) {
      if (typeof line === 'string') lines.push({ line, dir: '', source: 'composer.json' });
    }
  }
  const out: string[] = [];
  for (const { line, dir: start } of await followTasks(ctx, lines)) {
    if (!/phpunit/.test(line)) continue;
    let dir = start;
    for (const { argv } of parseShell(line)) {
      if (argv[0] === 'cd' && argv[1]) { dir = joinPath(dir, argv[1]); continue; }
      const at = argv.findIndex((w) => /(?:^|\/)(?:simple-)?phpunit$/.test(w));
      if (at === -1) continue;
      let config: string | undefined;
      for (let i = at + 1; i < argv.length; i++) {
        const eq = /^--configuration=(.*)$/.exec(argv[i]!);
        if (eq) config = eq[1];
        else if (argv[i] === '-c' || argv[i] === '--configuration') config = argv[++i];
      }
      const base = config === undefined ? dir : joinPath(dir, config);
      const found = ctx.has(base) ? base : CONFIGS.map((c) => joinPath(base, c)).find((c) => ctx.has(c));
      if (found && !/(?:^|\/)vendor\//.test(found) && !out.includes(found)) out.push(found);
    }
  }
  return out;
}

// Module-level: a scan process keeps a rowPerFile counter between scans (with-cases.ts), so it must not hold a scan.
const countPhpunit = (text: string, file: string): number => (file.endsWith('.phpt') ? 1 : countMatches(text, CASES));
