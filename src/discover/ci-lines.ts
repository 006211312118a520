import type { ScanContext } from '../rules/types.ts';
import { parseYaml } from '../readers/yaml.ts';
import { joinPath } from '../rules/paths.ts';

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

const WORKFLOWS = /^\.github\/workflows\/[^/]+\.ya?ml$/;
const OTHERS = ['.gitlab-ci.yml', '.circleci/config.yml', '.travis.yml'];
const MAX_FILES = 32;
const MAX_LINES = 512;
const MAX_VALUES = 16;

/**
 * @example
 * await ciLines(ctx); // [{ line: 'go test -tags integration ./...', dir: '', source: '.github/workflows/ci.yml' }]
 */
export async function ciLines(ctx: ScanContext): Promise<CommandLine[]> {
  const files = [...ctx.under('.github/workflows').filter((f) => WORKFLOWS.test(f)), ...OTHERS.filter((f) => ctx.has(f))].slice(0, MAX_FILES);
  const out: CommandLine[] = [];
  for (const source of files) {
    const doc = parseYaml((await ctx.read(source)) ?? '');
    for (const step of runSteps(source, doc)) {
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

type Matrix = ReadonlyMap<string, readonly string[]>;

function runSteps(file: string, doc: unknown): Array<{ run: string; dir: string; matrix: Matrix }> {
  if (!isObject(doc)) return [];
  const none: Matrix = new Map();
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const out: Array<{ run: string; dir: string; matrix: Matrix }> = [];
  if (file === '.travis.yml') {
    // Travis CI: the top-level `script:` (a line or a list) is the test phase.
    const script = Array.isArray(doc.script) ? doc.script.filter((l) => typeof l === 'string').join('\n') : str(doc.script);
    return script === undefined ? [] : [{ run: script, dir: '', matrix: none }];
  }
  if (file === '.gitlab-ci.yml') {
    for (const job of Object.values(doc)) {
      if (!isObject(job)) continue;
      const script = Array.isArray(job.script) ? job.script.filter((s) => typeof s === 'string').join('\n') : str(job.script);
      if (script !== undefined) out.push({ run: script, dir: '', matrix: none });
    }
    return out;
  }
  for (const job of Object.values(isObject(doc.jobs) ? doc.jobs : {})) {
    if (!isObject(job) || !Array.isArray(job.steps)) continue;
    const defaults = isObject(job.defaults) && isObject(job.defaults.run) ? str(job.defaults.run['working-directory']) : undefined;
    const jobDir = str(job.working_directory) ?? defaults ?? '';
    const matrix = matrixOf(job.strategy);
    for (const step of job.steps) {
      if (!isObject(step)) continue;
      const run = isObject(step.run) ? str(step.run.command) : str(step.run);
      if (run === undefined) continue;
      const dir = str(step['working-directory']) ?? (isObject(step.run) ? str(step.run.working_directory) : undefined) ?? jobDir;
      out.push({ run, dir, matrix });
    }
  }
  return out;
}

/** A job's matrix keys whose values are a literal list of plain values (`include`/`exclude` aside). */
function matrixOf(strategy: unknown): Matrix {
  const out = new Map<string, string[]>();
  if (!isObject(strategy) || !isObject(strategy.matrix)) return out;
  for (const [key, values] of Object.entries(strategy.matrix)) {
    if (key === 'include' || key === 'exclude' || !Array.isArray(values)) continue;
    const plain = values.filter((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean').map(String);
    if (plain.length === values.length && plain.length > 0) out.set(key, plain.slice(0, MAX_VALUES));
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

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
