import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { iniLines, iniWords, parseIni } from '../../src/readers/ini.ts';

suite('parseIni()', () => {
  test('sections, both separators, comments and continuation lines', () => {
    const ini = parseIni([
      '; top comment', '[tool:pytest]', 'testpaths =', '    tests', '    integration  # slow', 'Python_Files: check_*.py',
      '', '[testenv]', 'commands =', '    python -m unittest discover \\', '        -s tests', '    coverage report', '# done',
    ].join('\r\n'));
    assert.deepEqual(iniWords(ini.get('tool:pytest')?.get('testpaths')), ['tests', 'integration']);
    assert.equal(ini.get('tool:pytest')?.get('python_files'), 'check_*.py');
    assert.deepEqual(iniLines(ini.get('testenv')?.get('commands')), ['python -m unittest discover \\', '-s tests', 'coverage report']);
  });

  test('repeated sections merge and junk lines are ignored', () => {
    const ini = parseIni('junk line\n[a]\nx = 1\n[b]\ny = 2\n[a]\nz = 3\n');
    assert.equal(ini.get('a')?.get('x'), '1');
    assert.equal(ini.get('a')?.get('z'), '3');
    assert.deepEqual(iniWords(undefined), []);
  });
});
