import type { ScanContext } from '../rules/types.ts';
import { parseShell } from '../readers/shell/parse.ts';
import { joinPath } from '../rules/paths.ts';
import { ciLines } from './ci-lines.ts';
import { followTasks, localTestCalls } from './task-files.ts';

/**
 * The build tags a project's own `go test` runs set (`-tags a,b`, `-tags "a b"`, `-tags=a`, also through
 * `gotestsum [--] ...` and `go-acc PKGS -- ...`), read from its CI lines and the Makefile, justfile or Taskfile targets those lines
 * and `make test` / `just test` / `task test` reach, each with the package patterns it covers: `./...`
 * (recursive), `./dir/...`, `./dir`, `.` or none (the directory it runs in), and the module's import path
 * written in full.
 */
export interface GoTagRun {
  /** Project-relative directory the pattern starts at. */
  readonly dir: string;
  readonly recursive: boolean;
  readonly tags: readonly string[];
  readonly source: string;
}

const MAX_RUNS = 64;

/**
 * @example
 * await goTagRuns(ctx, ['']); // [{ dir: '', recursive: true, tags: ['integration'], source: '.github/workflows/ci.yml' }]
 */
export async function goTagRuns(ctx: ScanContext, modules: ReadonlyMap<string, string>): Promise<GoTagRun[]> {
  const lines = await followTasks(ctx, [...await ciLines(ctx), ...localTestCalls(ctx)]);
  const out: GoTagRun[] = [];
  for (const { line, dir: start, source } of lines) {
    if (!/\bgo(?:testsum|-acc)?\b/.test(line) || !/-tags/.test(line)) continue;
    let dir = start;
    for (const { argv } of parseShell(line.replace(/\$\{\{[^}]*\}\}/g, '${{expr}}'))) {
      if (argv[0] === 'cd' && argv[1] !== undefined) { dir = joinPath(dir, argv[1]); continue; }
      const args = goTestArgs(argv);
      if (!args) continue;
      const tags: string[] = [];
      const patterns: string[] = [];
      for (let i = 0; i < args.length; i++) {
        const a = args[i]!;
        const eq = /^--?tags=(.*)$/.exec(a);
        if (eq || a === '-tags' || a === '--tags') {
          tags.push(...(eq ? eq[1]! : args[++i] ?? '').split(/[\s,]+/).filter((t) => /^[\w.]+$/.test(t)));
          continue;
        }
        if (a.startsWith('-')) { if (!a.includes('=') && VALUE_FLAGS.has(a.replace(/^--/, '-'))) i++; continue; }
        // A package list computed by the workflow (`${{ env.args }}`) is not known: the run is read as `go test` alone.
        if (!a.includes('${{')) patterns.push(a);
      }
      if (tags.length === 0) continue;
      for (const p of patterns.length > 0 ? patterns : ['.']) {
        const scope = scopeOf(p, dir, modules);
        if (scope && out.length < MAX_RUNS) out.push({ ...scope, tags, source });
      }
    }
  }
  return out;
}

// `go test` and build flags that take a separate value; the rest are switches or `-flag=value`.
const VALUE_FLAGS = new Set(['-run', '-bench', '-count', '-cpu', '-timeout', '-coverprofile', '-covermode', '-coverpkg',
  '-p', '-parallel', '-o', '-exec', '-ldflags', '-gcflags', '-asmflags', '-mod', '-modfile', '-overlay', '-pkgdir',
  '-skip', '-shuffle', '-benchtime', '-blockprofile', '-cpuprofile', '-memprofile', '-mutexprofile', '-outputdir',
  '-trace', '-vet', '-fuzz', '-fuzztime', '-C', '-f', '--format', '--jsonfile', '--junitfile', '--rerun-fails', '--packages']);

/** The words after `go test` (or what gotestsum hands to it), or undefined for any other command. */
function goTestArgs(argv: readonly string[]): readonly string[] | undefined {
  const at = argv.findIndex((w) => /^(?:.*\/)?(?:go|gotestsum|go-acc)$/.test(w));
  if (at === -1) return undefined;
  // go-acc PACKAGES -- GO_TEST_FLAGS (a coverage wrapper around go test).
  if (argv[at]!.endsWith('go-acc')) {
    const dash = argv.indexOf('--', at);
    return dash === -1 ? argv.slice(at + 1) : [...argv.slice(dash + 1), ...argv.slice(at + 1, dash)];
  }
  if (argv[at]!.endsWith('gotestsum')) {
    const dash = argv.indexOf('--', at);
    return dash === -1 ? argv.slice(at + 1) : argv.slice(dash + 1);
  }
  return argv[at + 1] === 'test' ? argv.slice(at + 2) : undefined;
}

function scopeOf(pattern: string, dir: string, modules: ReadonlyMap<string, string>): { dir: string; recursive: boolean } | undefined {
  let p = pattern;
  // The module's own import path: `example.com/m/...` is `./...` from the module's directory.
  for (const [modDir, path] of modules) {
    if (p === path || p.startsWith(path + '/')) { p = './' + p.slice(path.length + 1); dir = modDir; break; }
  }
  if (!(p === '.' || p === './...' || p.startsWith('./') || p.startsWith('../'))) return undefined;
  const recursive = p.endsWith('/...');
  return { dir: joinPath(dir, recursive ? p.slice(0, -4) : p), recursive };
}
