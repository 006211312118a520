import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { fixture } from '../helpers/index.ts';

// The fixtures against the real runners: scripts/compare-with-runner.ts asks each installed runner which
// files it would run and diffs that with projdex's scan. A runner that is not installed, or installed in
// another major than the fixture asks for, is skipped by the script; a fixture for which every runner was
// skipped is a skipped test saying so. PROJDEX_SKIP_COMPARE=1 skips the lot (quick local runs).

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'compare-with-runner.ts');
/** Per fixture: a runner that compiles (cargo, mix) on a cold cache takes a while; one that hangs fails. */
const DEADLINE_MS = 240_000;
/** Fixtures whose truth the adapters cannot reproduce, with the reason (checked by hand instead). */
const BEYOND_ADAPTERS: Record<string, string> = {
  'js-no-root-test': 'no root test script: the truth is each package\'s own script (jest in one, vitest by dependency in the '
    + 'other), while the adapter runs one runner at the root',
  'js-nx-project-json': 'Nx runs each project\'s target (jest --config per project, vitest per project, node --test in '
    + 'tools/scripts), while the adapters run one runner at the root; checked by hand per project',
  'js-make-test': 'the files come from a Makefile recipe (mocha with sh-expanded globs), which the mocha adapter does not '
    + 'read; checked by hand with `make -n test` and mocha\'s own collector',
  'js-tape': 'tape is not installed here (no registry access) and has no adapter; its file list is glob.sync of each '
    + 'argument after sh\'s own expansion (bin/tape), checked by hand',
};
const FIXTURES = readdirSync(join(import.meta.dirname, '..', 'fixtures')).filter((name) => !name.startsWith('ports-')).sort();

function compare(dir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [SCRIPT, dir], { timeout: DEADLINE_MS, killSignal: 'SIGKILL', maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      if (error && (error as { killed?: boolean }).killed) reject(new Error(`compare of ${dir} did not finish within ${DEADLINE_MS} ms\n${stdout}${stderr}`));
      else resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

suite('fixtures against the real runners (scripts/compare-with-runner.ts)', { concurrency: 4, skip: process.env.PROJDEX_SKIP_COMPARE ? 'PROJDEX_SKIP_COMPARE is set' : false }, () => {
  for (const name of FIXTURES) {
    test(name, { timeout: DEADLINE_MS + 10_000, skip: BEYOND_ADAPTERS[name] ?? false }, async (t) => {
      const { code, stdout, stderr } = await compare(fixture(name));
      const lines = stdout.split('\n').filter((line) => line.trim() !== '');
      const compared = lines.filter((line) => /: (same|DIFFERENT|not used)/.test(line));
      if (compared.length === 0 && code === 0) {
        t.skip(`no runner compared ${name}: none installed in the major it asks for, or no adapter for its runner`);
        return;
      }
      assert.deepEqual(lines.filter((line) => !/: (same|skipped|not used)/.test(line)), [], `projdex and the runner differ on ${name}:\n${stdout}${stderr}`);
      assert.equal(code, 0, stdout + stderr);
      // "not used" is fine when projdex followed another runner there (pytest next to unittest); a fixture
      // where a runner lists files and projdex matched no runner at all is projdex missing the runner.
      if (compared.every((line) => /: not used/.test(line))) {
        // Unless projdex followed a runner this machine lacks (pytest installed, Django's runner not).
        if (lines.some((line) => /: skipped \(.*projdex lists [1-9]/.test(line))) {
          t.skip(`the runner projdex follows for ${name} is not installed here`);
          return;
        }
        assert.fail(`only "not used" for ${name}: projdex found no runner the real ones agree on\n${stdout}`);
      }
    });
  }
});
