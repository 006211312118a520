/**
 * What a project's CI runs as its tests, read when package.json does not say (no `test` script, or npm's
 * placeholder): the `run:` steps of GitHub Actions workflows (`.github/workflows/*.yml`, with the step's or
 * the job's `working-directory`), GitLab CI jobs' `script:` and CircleCI jobs' `run:` steps. Only the lines
 * that start a test are kept: a runner, a script or task whose name says test, or a package manager's
 * `test`; installs, builds and lints are left out. The lines are returned as one shell text for
 * script.ts to follow like a package script.
 */

import { parseYaml } from '../../../readers/yaml.ts';
import { parseShell } from '../../../readers/shell/parse.ts';
import { classify } from './commands.ts';
import { joinDir } from '../../../readers/shell/words.ts';
import { ciSteps, WORKFLOW_FILE, type Matrix } from '../../ci-steps.ts';

/**
 * The test lines of one CI file, as a shell text (one line each, `cd dir && ` for another directory), and
 * the lines that name a test through a workflow expression no script name matches, which only a CI run
 * decides.
 */
export interface CiTests {
  readonly file: string; readonly lines: readonly string[]; readonly undecided: readonly string[];
  /** Lines whose workflow expression was read as a wildcard over the package's script names. */
  readonly widened: readonly string[];
}

type Read = (file: string) => Promise<string | undefined>;

const OTHERS = ['.gitlab-ci.yml', '.circleci/config.yml'];
const MAX_FILES = 32;
const MAX_LINES = 64;
const TEST_NAME = /test|spec/i;

/**
 * The CI files among `files` (project-relative) and the test lines each runs, in file order; files with
 * none are left out. `hasScript` says whether the package defines a (real) script of that name.
 *
 * @example
 * await ciTests(['.github/workflows/ci.yml'], read, (n) => n === 'test:unit');
 * // [{ file: '.github/workflows/ci.yml', lines: ['npm run test:unit -- --ci'], undecided: [], widened: [] }]
 */
export async function ciTests(files: readonly string[], read: Read, hasScript: (name: string) => boolean): Promise<CiTests[]> {
  const chosen = [...files.filter((f) => WORKFLOW_FILE.test(f)).sort(), ...OTHERS.filter((f) => files.includes(f))].slice(0, MAX_FILES);
  const out: CiTests[] = [];
  let total = 0;
  for (const file of chosen) {
    const text = await read(file);
    if (text === undefined) continue;
    const lines: string[] = [];
    const undecided: string[] = [];
    const widened: string[] = [];
    for (const step of runSteps(file, parseYaml(text))) {
      // Each step is a shell of its own, starting in its directory; a `cd` carries to the step's next lines only.
      let here = step.dir === '.' ? '' : step.dir;
      for (const line of step.run.replace(/\\\r?\n/g, ' ').split('\n')) {
        const written = line.trim();
        if (written === '' || written.startsWith('#')) continue;
        // `npm run test-${{ matrix.browser }}`: a matrix or a caller runs every value, so the expression
        // reads as a wildcard over script names (`test-*`); it must still name a script of the package.
        const body = written.replace(/(?:\$\{\{[^}]*\}\})+/g, '*');
        const commands = parseShell(body);
        const start = here;
        for (const c of commands) if (c.argv[0] === 'cd' && c.argv.length === 2 && !c.argv[1]!.includes('*')) here = joinDir(here, c.argv[1]!);
        // In another directory, `npm run test` names that directory's script, which the root's cannot vouch for.
        const elsewhere = start !== '' || commands.some((c) => c.argv[0] === 'cd');
        const named = elsewhere ? (n: string): boolean => hasScript(n) || TEST_NAME.test(n) : hasScript;
        if (!commands.some((c) => startsTest(c.argv, c.quoted, named, 0))) {
          if (body !== written && TEST_NAME.test(body) && !undecided.includes(written)) undecided.push(written);
          continue;
        }
        if (body !== written && !widened.includes(written)) widened.push(written);
        // A line that changes directory runs in a subshell, so the lines of other steps start where they should.
        const moved = start === '' ? body : `cd ${shellWord(start)} && ${body}`;
        const full = start !== '' || commands.some((c) => c.argv[0] === 'cd') ? `(${moved})` : moved;
        if (!lines.includes(full) && total < MAX_LINES) { lines.push(full); total++; }
      }
    }
    if (lines.length > 0 || undecided.length > 0) out.push({ file, lines, undecided, widened });
  }
  return out;
}

/** The shell texts a CI file runs, with the directory each runs in (`''` for the checkout's root). */
function runSteps(file: string, doc: unknown): Array<{ run: string; dir: string }> {
  return ciSteps(file, doc).flatMap(({ run, dir, matrix }) =>
    matrixValues(dir, matrix).map((d) => ({ run, dir: d.replace(/^~\/project\/?|^\.\/?/, '') })));
}

/** Whether a command starts a test: a runner, or a script, task or target named for tests. */
function startsTest(argv: readonly string[], quoted: readonly boolean[], hasScript: (name: string) => boolean, hops: number): boolean {
  const step = classify(argv, quoted, hasScript);
  switch (step.kind) {
    case 'runner': return true;
    case 'script': return step.names instanceof RegExp ? TEST_NAME.test(step.names.source)
      : step.names.some((n) => TEST_NAME.test(n) && (hasScript(n) || /[*?]/.test(n)));
    case 'delegate': return step.scripts.some((s) => TEST_NAME.test(s));
    case 'wrapped': return hops < 8 && startsTest(step.argv, step.quoted, hasScript, hops + 1);
    case 'shfile': return TEST_NAME.test(step.path);
    case 'make': return step.targets.some((t) => TEST_NAME.test(t));
    case 'tasks': return step.argv.slice(1).some((t) => !t.startsWith('-') && TEST_NAME.test(t));
    default: return false;
  }
}

/**
 * A working directory naming a matrix value (`./${{ matrix.dir }}`) is each of that matrix's literal values
 * (a job runs once per value); anything else is taken as written.
 */
function matrixValues(dir: string, matrix: Matrix): readonly string[] {
  const m = /^(.*)\$\{\{\s*matrix\.([\w-]+)\s*\}\}(.*)$/.exec(dir);
  const values = m ? matrix.get(m[2]!) : undefined;
  return m && values ? values.map((v) => `${m[1]}${v}${m[3]}`) : [dir];
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
