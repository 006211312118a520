import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { makeTree } from '../helpers/index.ts';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'compare-with-runner.ts');
const havePytest = ((): boolean => {
  try {
    execFileSync('pytest', ['--version'], { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
})();

suite('scripts/compare-with-runner.ts', () => {
  test('a runner that cannot list (an import error) is reported as failed, not as a difference', { skip: havePytest ? false : 'pytest is not installed' }, async (t) => {
    const dir = makeTree(t, {
      'pytest.ini': '[pytest]\ntestpaths = tests\n',
      'tests/test_ok.py': 'def test_one():\n    pass\n',
      'tests/test_broken.py': 'import module_that_is_not_installed\n\ndef test_two():\n    pass\n',
    });
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(process.execPath, [SCRIPT, dir, '--framework', 'pytest'], { timeout: 120_000 }, (error, out) => resolve({ code: error ? Number(error.code) : 0, stdout: out }));
    });
    assert.doesNotMatch(stdout, /DIFFERENT/);
    assert.match(stdout, new RegExp(`^${dir} pytest: FAILED \\(the runner did not list its tests: pytest exited 2: .+; projdex lists 2\\)$`, 'm'));
    assert.match(stdout, /^1 runner failed to list \(not counted as differences\)$/m);
    assert.equal(code, 3);
  });
});
