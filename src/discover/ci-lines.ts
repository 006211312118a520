import type { ScanContext } from '../rules/types.ts';
import { parseYaml } from '../readers/yaml.ts';
import { joinPath } from '../rules/paths.ts';
import { ciSteps, WORKFLOW_FILE, type Matrix } from './ci-steps.ts';

/**
 * The shell lines a project's CI runs, for the rules outside JavaScript that read what CI sets (build
 * tags, the task a step calls, a config a step points at): GitHub Actions `run:` steps (with the step's or
 * job's `working-directory`), GitLab CI `script:` entries, CircleCI `run:` steps and Travis CI's `script:`.
 * A GitHub job's `strategy.matrix` lists of plain values are written into `${{ matrix.NAME }}`, one line
 * per value, since the matrix runs every value; any other expression is left as written. A `cd dir` line
 * moves the lines after it in the same step.
 */

/** One line a project runs, where it runs, and the file that says so. */
export interface CommandLine { readonly line: string; readonly dir: string; readonly source: string }

const OTHERS = ['.gitlab-ci.yml', '.circleci/config.yml', '.travis.yml'];
const MAX_FILES = 32;
const MAX_LINES = 512;

/**
 * @example
 * await ciLines(ctx); // [{ line: 'go test -tags integration ./...', dir: '', source: '.github/workflows/ci.yml' }]
 */
export async function ciLines(ctx: ScanContext): Promise<CommandLine[]> {
  const files = [...ctx.under('.github/workflows').filter((f) => WORKFLOW_FILE.test(f)), ...OTHERS.filter((f) => ctx.has(f))].slice(0, MAX_FILES);
  const out: CommandLine[] = [];
  for (const source of files) {
    const doc = parseYaml((await ctx.read(source)) ?? '');
    for (const step of ciSteps(source, doc)) {
      // A `cd dir` line of a step's script moves the lines after it (the script runs in one shell).
      let dir = joinPath(step.dir.replace(/^~\/project\/?|^\.\/?/, ''));
      for (const raw of step.run.replace(/\\\r?\n/g, ' ').split('\n')) {
        const written = raw.trim();
        if (written === '' || written.startsWith('#')) continue;
        for (const line of withMatrix(written, step.matrix)) {
          if (out.length >= MAX_LINES) return out;
          out.push({ line, dir, source });
        }
        const cd = /^cd\s+([\w./@+-]+)\s*;?$/.exec(written)?.[1];
        if (cd !== undefined) dir = joinPath(dir, cd);
      }
    }
  }
  return out;
}

/** The line once per value of each matrix key it names (the first two keys; the rest left as written). */
function withMatrix(line: string, matrix: Matrix): string[] {
  let lines = [line];
  const named = [...new Set([...line.matchAll(/\$\{\{\s*matrix\.([\w-]+)\s*\}\}/g)].map((m) => m[1]!))].filter((k) => matrix.has(k));
  for (const key of named.slice(0, 2)) {
    const pattern = new RegExp(`\\$\\{\\{\\s*matrix\\.${key.replace(/-/g, '\\-')}\\s*\\}\\}`, 'g');
    lines = lines.flatMap((l) => matrix.get(key)!.map((v) => l.replace(pattern, () => v)));
  }
  return lines;
}
