/**
 * Commands of a package script that hand the work to a file of the project: a shell script
 * (`./scripts/test.sh`, `sh scripts/test.sh --ci`, `bash -c "..."`) or a Makefile target (`make test`,
 * `make -C e2e check`). script.ts reads those files and follows them as shell programs.
 */

import type { Step } from './commands.ts';

// `sh` options that take no file: the script file is the first other word.
const SH_OPTIONS = /^[-+][aefhkmnpuvxBCEHPT]+$|^-o$|^[-+]o$/;

/** `sh [-eux] [-o pipefail] file args`, `bash -c "text"`, `source file`; `sh` alone reads stdin (nothing to follow). */
export function shell(rest: string[], restQ: boolean[]): Step {
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '-c') return { kind: 'program', text: rest[i + 1] ?? '' };
    if (/^-[a-z]*c[a-z]*$/.test(a) && !restQ[i]) return { kind: 'program', text: rest[i + 1] ?? '' };
    if (a === '-o' || a === '+o') { i++; continue; }
    if (a === '--' || SH_OPTIONS.test(a) || /^--\w/.test(a)) continue;
    return { kind: 'shfile', path: a, args: rest.slice(i + 1), quoted: restQ.slice(i + 1) };
  }
  return { kind: 'quiet' };
}

/** `make`, `make test check`, `make -C dir -f file.mk test`, `make -j4 -k test VAR=1`. */
export function make(rest: string[]): Step {
  let dir = '';
  let file: string | null = null;
  const targets: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const d = /^(?:-C|--directory)(?:=?(.+))?$/.exec(a);
    if (d) { dir = d[1] ?? rest[++i] ?? ''; continue; }
    const f = /^(?:-f|--file|--makefile)(?:=?(.+))?$/.exec(a);
    if (f) { file = f[1] ?? rest[++i] ?? null; continue; }
    if (a === '-j' || a === '-l' || a === '-I' || a === '-o' || a === '-W') { if (/^\d+$/.test(rest[i + 1] ?? '') || a !== '-j') i++; continue; }
    if (a.startsWith('-') || /^[A-Za-z_]\w*[:+?]?=/.test(a)) continue;
    targets.push(a);
  }
  return { kind: 'make', dir, file, targets };
}

/** `./scripts/test.sh args`, `scripts/ci.sh`, `test.sh`: a script file run directly; undefined otherwise. */
export function shellFile(word: string, rest: string[], restQ: boolean[]): Step | undefined {
  if (word.startsWith('/') || word.startsWith('~') || word.includes('$')) return undefined;
  // `./scripts/test.js` runs under its shebang's interpreter (node): its child-process calls are read.
  if (/^\.\.?\/.*\.[cm]?[jt]s$/.test(word)) return { kind: 'jsfile', path: word, args: rest, quoted: restQ };
  if (/\.[cm]?[jt]sx?$|\.py$|\.rb$/.test(word) || (!/^\.\.?\//.test(word) && !/\.(sh|bash)$/.test(word))) return undefined;
  return { kind: 'shfile', path: word, args: rest, quoted: restQ };
}
