import type { ScanContext } from '../../rules/types.ts';
import { dirname, joinPath } from '../../rules/paths.ts';

/** What the conftest.py files of one run ask pytest to skip, as project-relative paths and globs. */
export interface ConftestIgnores {
  readonly paths: Set<string>;
  readonly globs: string[];
}

const ASSIGN = /^(collect_ignore(?:_glob)?)\s*(?::[^=\n]*)?(\+?=)\s*(\[[^\]]*\])\s*(?:#.*)?$/gm;
const APPEND = /^(collect_ignore(?:_glob)?)\.(append|extend)\(\s*(\[[^\]]*\]|["'][^"'\n]*["'])\s*\)\s*(?:#.*)?$/gm;
const COLLECT_HOOKS = /^def\s+(pytest_ignore_collect|pytest_collect_file|pytest_pycollect_makemodule)\s*\(/gm;
const ANY_USE = /^[ \t]*(collect_ignore(?:_glob)?)\b\s*(?:[:+]?=|\.(?:append|extend)\()/gm;

/**
 * The literal `collect_ignore` / `collect_ignore_glob` of each conftest.py (module level, at column 0:
 * `collect_ignore = ["setup.py"]`, `+= [...]`, `.append("x")`, `.extend([...])`), resolved against the
 * conftest's directory as pytest does (`_getconftest_pathlist`). A conftest.py applies only below its own
 * directory, and every entry is joined to that directory, so one flat list serves the whole run. A
 * conditional or computed value (`[] if ENV else ["test_*.py"]`, indented under an `if`) cannot be
 * known statically: it is left out, with a note.
 */
export async function conftestIgnores(ctx: ScanContext, conftests: readonly string[]): Promise<ConftestIgnores> {
  const out: ConftestIgnores = { paths: new Set(), globs: [] };
  for (const file of conftests) {
    const text = await ctx.read(file);
    // Hooks that decide which files are collected run only inside pytest: say so rather than be silent.
    const hooks = [...new Set([...(text ?? '').matchAll(COLLECT_HOOKS)].map((m) => m[1]!))];
    if (hooks.length > 0) {
      ctx.note(`${file}: defines ${hooks.map((h) => `\`${h}\``).join(', ')}, which ${hooks.length === 1 ? 'chooses' : 'choose'} the files pytest collects below it; projdex cannot run ${hooks.length === 1 ? 'it' : 'them'} and listed files by the configured names`);
    }
    if (text === undefined || !text.includes('collect_ignore')) continue;
    const dir = dirname(file);
    const local: Record<string, string[]> = { collect_ignore: [], collect_ignore_glob: [] };
    const found = [...text.matchAll(ASSIGN), ...text.matchAll(APPEND)].sort((a, b) => a.index - b.index);
    for (const m of found) {
      // A plain `=` replaces what earlier lines of the same file set; the module runs top to bottom.
      if (m[2] === '=') local[m[1]!] = [];
      local[m[1]!]!.push(...strings(m[3]!));
    }
    for (const item of local.collect_ignore!) out.paths.add(joinPath(dir, item));
    for (const item of local.collect_ignore_glob!) out.globs.push(joinPath(dir, item));
    if ([...text.matchAll(ANY_USE)].length > found.length) {
      ctx.note(`${file}: collect_ignore is computed or conditional; projdex used only its literal module-level entries`);
    }
  }
  return out;
}

function strings(src: string): string[] {
  return [...src.matchAll(/(?:^|[\s,[(])[rbu]?(["'])([^"'\n]*)\1/g)].map((m) => m[2]!);
}
