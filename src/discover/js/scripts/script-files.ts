/**
 * Files a package script hands the work to, read for script.ts: a shell script run directly or through
 * `sh`/`bash` (its shebang must name a shell), and Makefile targets (`make test`: the target's
 * prerequisites first, then its recipe, one `sh` line each, as make runs them). Paths are
 * package-relative; the reader given by reach.ts only reads files of the project.
 */

import { readMakefile, type MakeRule } from '../../../readers/makefile.ts';
import { joinDir } from '../../../readers/shell/words.ts';

/** Reads a package-relative file; undefined when absent or outside the project. */
export type FileReader = (rel: string) => Promise<string | undefined>;

/** Recipe lines to follow, with the directory they run in (package-relative) and the file they come from. */
export interface FileText { readonly text: string; readonly cwd: string; readonly file: string }

const SHELLS = /^#!\s*\S*\/(?:env\s+(?:-\S+\s+)*)?(sh|bash|zsh|dash|ksh)\b/;
const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];
const MAX_RULES = 32;

/** A shell script file's text, or why it cannot be followed (absent, or a node/python script by its shebang). */
export async function scriptFileText(read: FileReader, file: string): Promise<string | { why: string }> {
  if (file.startsWith('/') || file.startsWith('~')) return { why: 'is outside the project; not read' };
  const text = await read(file);
  if (text === undefined) return { why: `${file} is not a file of the project` };
  const first = text.slice(0, 200).split('\n')[0]!;
  if (first.startsWith('#!') && !SHELLS.test(first)) return { why: `${file} runs under \`${first.slice(2).trim()}\`, not a shell` };
  return text;
}

/**
 * Recipe lines `make [-C dir] [-f file] targets` runs: each target's prerequisites (that are rules of the
 * file) first, then its recipe; no target means the first rule. A string says why nothing could be read.
 */
export async function makeTexts(read: FileReader, dir: string, file: string | null, targets: readonly string[]): Promise<FileText[] | string> {
  if (dir.startsWith('/') || dir.startsWith('~')) return 'the directory is outside the project; not read';
  let name: string | undefined;
  let text: string | undefined;
  for (const candidate of file !== null ? [file] : MAKEFILES) {
    text = await read(joinDir(dir, candidate));
    if (text !== undefined) { name = joinDir(dir, candidate); break; }
  }
  if (text === undefined || name === undefined) return `no ${file ?? 'Makefile'} in ${dir === '' ? 'the package' : dir}`;
  const rules = readMakefile(text);
  const byTarget = new Map<string, MakeRule[]>();
  for (const r of rules) byTarget.set(r.target, [...(byTarget.get(r.target) ?? []), r]);
  const goals = targets.length > 0 ? targets : rules.filter((r) => !r.target.includes('%')).slice(0, 1).map((r) => r.target);
  const missing = goals.filter((g) => !byTarget.has(g));
  if (missing.length > 0) return `${name} has no \`${missing.join(' ')}\` target`;
  const out: FileText[] = [];
  const done = new Set<string>();
  const visit = (target: string): void => {
    const own = byTarget.get(target);
    if (!own || done.has(target) || done.size >= MAX_RULES) return;
    done.add(target);
    for (const r of own) for (const p of r.prereqs) visit(p);
    for (const r of own) for (const line of r.recipe) out.push({ text: line, cwd: dir, file: name! });
  };
  for (const g of goals) visit(g);
  return out;
}
