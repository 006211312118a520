import type { ScanContext } from '../../rules/types.ts';
import { basename, dirname, joinPath } from '../../rules/paths.ts';

/**
 * The files a hand-written unittest runner module loads (`python -m tests`, `python run_tests.py`, a
 * package's `tests/__init__.py` that builds a suite), read statically:
 * - test modules named in literal lists handed to `loadTestsFromNames` / `loadTestsFromName` (directly
 *   or through a variable, a `for` loop or a `%`-format over a listing), or imported and given to
 *   `findTestCases` / `loadTestsFromModule`;
 * - the modules `doctest.DocTestSuite(...)` is given: a dotted string, or a name or a loop over a literal
 *   tuple of names, read through the module's imports;
 * - text files given to `doctest.DocFileSuite(...)` by a literal name;
 * - the module itself, when it adds a TestCase it defines (`suite.addTest(Check())`);
 * - `os.listdir(os.path.dirname(__file__) or '.')` filtered by a literal `startswith(...)` and `.py`:
 *   the module's own directory.
 * A module that calls a function of another module of the project (`import pkg.tests` ...
 * `pkg.tests.main()`) is read together with that module, one hop. Names resolve as module files from the
 * run's directory (or the module's own directory, for a runner that puts it on `sys.path`).
 */
export interface RunnerModule {
  /** Test and doctest files, project-relative, in the order found. */
  readonly files: readonly string[];
  /** Whether anything in the module was computed beyond these shapes (a note says the list may be short). */
  readonly partial: boolean;
}

const MAX_TEXT = 256 * 1024;
const MAX_CALLS = 64;
// `os.listdir(os.path.dirname(__file__) or '.')` ... `.startswith("test")`, every part bounded.
const LISTING = new RegExp(String.raw`os\.listdir\(\s*os\.path\.dirname\([^()]{0,200}(?:\([^()]{0,200}\)[^()]{0,200})?__file__`
  + String.raw`[^()]{0,200}\)[^)]{0,40}\)[^\]]{0,400}?startswith\(\s*["']([\w-]+)["']\s*\)`);

/**
 * @example
 * await readRunnerModule(ctx, 'tests/__main__.py', ''); // { files: ['tests/test_a.py', 'pkg/util.py'], partial: false }
 */
export async function readRunnerModule(ctx: ScanContext, file: string, cwd: string): Promise<RunnerModule | undefined> {
  const first = await ctx.read(file);
  if (first === undefined) return undefined;
  const texts = [{ file, text: first.slice(0, MAX_TEXT) }];
  // One hop: `import pkg.tests` (or `from pkg import tests`) then `pkg.tests.main(...)`.
  for (const m of first.matchAll(/^\s*import\s+([\w.]+)\s*$/gm)) {
    const target = m[1]!;
    if (!new RegExp(`\\b${target.replace(/\./g, '\\.')}\\.\\w+\\(`).test(first)) continue;
    const found = moduleFile(ctx, target, [cwd, dirname(file)]);
    const text = found === undefined || found === file ? undefined : await ctx.read(found);
    if (found && text !== undefined) texts.push({ file: found, text: text.slice(0, MAX_TEXT) });
  }
  const files: string[] = [];
  const add = (f: string | undefined): void => { if (f !== undefined && !files.includes(f)) files.push(f); };
  let partial = false;
  let recognised = false;
  for (const { file: at, text } of texts) {
    const roots = [cwd, dirname(at)];
    if (/loadTestsFrom\w+\s*\(|findTestCases\s*\(/.test(text)) {
      // Every dotted string in a list or tuple literal of the module that names one of its test modules.
      for (const list of text.matchAll(/[[(]\s*((?:["'][\w.]+["']\s*,\s*)*["'][\w.]+["']\s*,?\s*)[\])]/g)) {
        for (const s of list[1]!.matchAll(/["']([\w.]+)["']/g)) {
          const found = moduleFile(ctx, s[1]!, roots);
          if (found && /test/i.test(basename(found))) { add(found); recognised = true; }
        }
      }
      // `"pkg.tests.%s" % ...` over `os.listdir(os.path.dirname(__file__))` filtered by a prefix.
      const listing = LISTING.exec(text);
      if (listing) {
        for (const f of ctx.under(dirname(at))) if (dirname(f) === dirname(at) && basename(f).startsWith(listing[1]!) && f.endsWith('.py')) add(f);
        recognised = true;
      }
    }
    // Bounded: a file of thousands of calls (each looked up in the text around it) cannot run away.
    for (const call of [...text.matchAll(/DocTestSuite\(\s*([^,)]{1,200})/g)].slice(0, MAX_CALLS)) {
      const arg = call[1]!.trim();
      recognised = true;
      const str = /^["']([\w.]+)["']$/.exec(arg)?.[1];
      if (str) { add(moduleFile(ctx, str, roots)); continue; }
      // `for mod in (a, a.b): suite.addTest(doctest.DocTestSuite(mod))`: the loop's literal tuple.
      const loop = new RegExp(`for\\s+${escape(arg)}\\s+in\\s+[[(]([^\\])]*)[\\])]`).exec(text.slice(Math.max(0, call.index - 4000), call.index));
      const names = loop ? loop[1]!.split(',').map((n) => n.trim()).filter(Boolean) : [arg];
      for (const name of names) {
        const found = /^[\w.]+$/.test(name) ? moduleFile(ctx, importedAs(text, name), roots) : undefined;
        // A module without an example (`>>>`) gives doctest nothing to run.
        if (found) { if ((await ctx.read(found))?.includes('>>>')) add(found); } else partial = true;
      }
    }
    // A TestCase of the runner module itself added by hand: `suite.addTest(TestMissingSpeedups())`.
    for (const cls of text.matchAll(/^class\s+(\w+)\(\s*(?:unittest\.)?TestCase\s*\)/gm)) {
      if (new RegExp(`addTests?\\(\\s*${cls[1]}\\(`).test(text)) { add(at); recognised = true; }
    }
    for (const call of [...text.matchAll(/DocFileSuite\(([^)]{0,400})\)/g)].slice(0, MAX_CALLS)) {
      recognised = true;
      const name = /["']([^"']+\.(?:rst|txt|md))["']/.exec(call[1]!)?.[1];
      const found = name === undefined ? undefined : [dirname(at), cwd].map((d) => joinPath(d, name)).find((f) => ctx.has(f));
      if (found) add(found); else partial = true;
    }
  }
  return recognised ? { files, partial } : undefined;
}

/** A module name's file: `a.b` as `a/b.py` or `a/b/__init__.py` under one of the roots. */
export function moduleFile(ctx: ScanContext, name: string, roots: readonly string[]): string | undefined {
  const path = name.replace(/\./g, '/');
  for (const root of roots) {
    for (const at of [root, joinPath(root, 'src')]) {
      const f = [joinPath(at, path + '.py'), joinPath(at, path, '__init__.py')].find((c) => ctx.has(c));
      if (f !== undefined) return f;
    }
  }
  return undefined;
}

/** The dotted module a name stands for in this module: `from a import b` makes `b` `a.b`; else the name. */
function importedAs(text: string, name: string): string {
  const head = name.split('.')[0]!;
  for (const m of text.matchAll(/^\s*from\s+([\w.]+)\s+import\s+([^\n(]+)$/gm)) {
    for (const part of m[2]!.split(',')) {
      const [imported, alias] = part.trim().split(/\s+as\s+/);
      if ((alias ?? imported) === head) return [m[1]!, imported!, ...name.split('.').slice(1)].join('.');
    }
  }
  const aliased = new RegExp(`^\\s*import\\s+([\\w.]+)\\s+as\\s+${escape(head)}\\s*$`, 'm').exec(text);
  return aliased ? [aliased[1]!, ...name.split('.').slice(1)].join('.') : name;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
