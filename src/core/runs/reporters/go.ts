/**
 * go test (https://pkg.go.dev/cmd/test2json): `-json` streams one event per line on stdout. Results are
 * per package and test name; a test's file is the known `_test.go` file of the package's directory that
 * declares `func TestName(`. A package that fails without a test result (a build failure) fails its files.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { cleanMessage, type LineReader, type Reporter, type ReportContext, type TestOutcome } from './reporter.ts';

interface GoEvent { Action?: string; Package?: string; ImportPath?: string; Test?: string; Elapsed?: number; Output?: string }

/** Lines of a test's output kept for its failure message. */
const KEPT_LINES = 20;

export const go: Reporter = {
  runner: 'go',
  defaultCommand: 'go test ./...',
  home: ['go.mod'],
  accepts: (words) => words[0] === 'go' && words[1] === 'test',
  refuse: (invocation) => (invocation.last.includes('-json') ? 'the command already asks for -json' : undefined),
  args: (ctx) => ['-json', '-count=1', ...(ctx.files ? packagesOf(ctx) : [])],
  stdout: (ctx) => goReader(ctx),
};

/** The package patterns (`./dir`) holding the files asked for: go runs packages, not files. */
function packagesOf(ctx: ReportContext): string[] {
  const dirs = new Set((ctx.files ?? []).map((f) => dirname(f)));
  return [...dirs].map((dir) => `./${dir.slice(ctx.cwd.length + 1)}`.replace(/\/$/, ''));
}

function goReader(ctx: ReportContext): LineReader {
  const module = moduleOf(ctx.cwd);
  const outcomes: TestOutcome[] = [];
  const output = new Map<string, string[]>();
  const reported = new Set<string>();
  const testsOf = new Map<string, Map<string, string>>();
  const dirOf = (pkg: string): string | undefined => {
    if (!module) return undefined;
    if (pkg === module.path) return module.dir;
    return pkg.startsWith(module.path + '/') ? resolve(module.dir, pkg.slice(module.path.length + 1)) : undefined;
  };
  // Which known test file of a directory declares each top-level test.
  const declared = (dir: string): Map<string, string> => {
    let found = testsOf.get(dir);
    if (!found) {
      found = new Map();
      for (const file of ctx.known.filter((k) => dirname(k) === dir)) {
        let text = '';
        try { text = readFileSync(file, 'utf8'); } catch { continue; }
        for (const m of text.matchAll(/^func\s+((?:Test|Example|Fuzz)\w*)\s*\(/gm)) found.set(m[1]!, file);
      }
      testsOf.set(dir, found);
    }
    return found;
  };
  return {
    line(line) {
      let e: GoEvent;
      try { e = JSON.parse(line) as GoEvent; } catch { return line; }
      if (typeof e !== 'object' || e === null) return line;
      const pkg = e.Package ?? e.ImportPath ?? '';
      const key = `${pkg} ${e.Test ?? ''}`;
      if (e.Action === 'output' || e.Action === 'build-output') {
        const kept = output.get(key) ?? [];
        if (kept.length < KEPT_LINES) output.set(key, [...kept, String(e.Output ?? '')]);
        return String(e.Output ?? '').replace(/\n$/, '');
      }
      if (e.Action !== 'pass' && e.Action !== 'fail' && e.Action !== 'skip') return undefined;
      const dir = dirOf(pkg);
      if (!dir) return undefined;
      const status = e.Action === 'pass' ? 'passed' : e.Action === 'fail' ? 'failed' : 'skipped';
      if (e.Test && !e.Test.includes('/')) {
        const file = declared(dir).get(e.Test);
        if (!file) return undefined;
        reported.add(pkg);
        outcomes.push({ file, name: e.Test, status, ms: typeof e.Elapsed === 'number' ? e.Elapsed * 1000 : null,
          ...(status === 'failed' ? { message: cleanMessage((output.get(key) ?? []).join('')) } : {}) });
      } else if (!e.Test && status === 'failed' && !reported.has(pkg)) {
        // The package failed with no test result: it did not build, or a test binary died before reporting.
        const message = cleanMessage((output.get(key) ?? ['the package failed before any test reported']).join(''));
        for (const file of new Set(declared(dir).values())) outcomes.push({ file, name: '(package)', status, ms: null, message });
      }
      return undefined;
    },
    outcomes: () => outcomes,
  };
}

/** The module's path from the step directory's go.mod (go steps run in their module's directory). */
function moduleOf(dir: string): { path: string; dir: string } | undefined {
  let text: string;
  try { text = readFileSync(`${dir}/go.mod`, 'utf8'); } catch { return undefined; }
  const path = /^module\s+"?([^\s"]+)"?/m.exec(text)?.[1];
  return path ? { path, dir } : undefined;
}
