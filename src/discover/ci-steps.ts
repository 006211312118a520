/**
 * The steps of a CI file: each shell text it runs, the directory it runs in and its job's matrix. GitHub
 * Actions `run:` steps (with the step's or the job's `working-directory`), GitLab CI jobs' `script:`,
 * CircleCI `run:` steps (`command` and `working_directory`) and Travis CI's top-level `script:`. Both readers
 * of what CI runs start here: the JS stand-ins (js/scripts/ci.ts) and the other languages' (ci-lines.ts).
 */

/** A job's matrix: the keys whose values are a literal list of plain values. */
export type Matrix = ReadonlyMap<string, readonly string[]>;

/** One shell text a CI file runs, where (as written: `./dir`, `~/project/dir`) and in which job's matrix. */
export interface CiStep { readonly run: string; readonly dir: string; readonly matrix: Matrix }

/** GitHub Actions workflow files, project-relative. */
export const WORKFLOW_FILE = /^\.github\/workflows\/[^/]+\.ya?ml$/;

const MAX_VALUES = 16;

/**
 * @example
 * ciSteps('.gitlab-ci.yml', parseYaml('test:\n  script: npm test')); // [{ run: 'npm test', dir: '', matrix: Map {} }]
 */
export function ciSteps(file: string, doc: unknown): CiStep[] {
  if (!isObject(doc)) return [];
  const none: Matrix = new Map();
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const out: CiStep[] = [];
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

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
