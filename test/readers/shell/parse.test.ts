import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { parseShell } from '../../../src/readers/shell/parse.ts';

const argvs = (line: string): string[][] => parseShell(line).map((c) => [...c.argv]);

suite('parseShell()', () => {
  test('splits on &&, ||, ;, | and & into simple commands', () => {
    assert.deepEqual(argvs('a 1 && b 2 || c; d | e & f'), [['a', '1'], ['b', '2'], ['c'], ['d'], ['e'], ['f']]);
  });

  test('removes quotes and escapes, and reports which words were quoted', () => {
    const [cmd] = parseShell(`mocha 'test/**/*.js' "a b" c\\ d test/*.js`);
    assert.deepEqual(cmd!.argv, ['mocha', 'test/**/*.js', 'a b', 'c d', 'test/*.js']);
    assert.deepEqual(cmd!.quoted, [false, true, true, false, false]);
  });

  test('leading NAME=value words are environment assignments, quoted values included', () => {
    const [cmd] = parseShell(`PORT=3000 NODE_OPTIONS='--a --b' next dev`);
    assert.deepEqual(cmd!.env, [['PORT', '3000'], ['NODE_OPTIONS', '--a --b']]);
    assert.deepEqual(cmd!.argv, ['next', 'dev']);
    assert.deepEqual(parseShell(`'PORT=1' x`)[0]!.env, []);
    assert.deepEqual(parseShell('cross-env PORT=3000 x')[0]!.argv, ['cross-env', 'PORT=3000', 'x']);
  });

  test('keeps $VARS literal, drops comments and subshell parentheses', () => {
    assert.deepEqual(argvs('serve -p $PORT # comment && not-a-command'), [['serve', '-p', '$PORT']]);
    assert.deepEqual(argvs('(cd web && vite)'), [['cd', 'web'], ['vite']]);
    assert.deepEqual(argvs('echo "a\\"b" x#y'), [['echo', 'a"b', 'x#y']]);
  });

  test('says which $ the shell would expand: not single-quoted, not escaped', () => {
    const [cmd] = parseShell(`X='$HOME' run '$A' "$B" $C \\$D "\\$E" '$F'"$G"`);
    assert.deepEqual(cmd!.argv, ['run', '$A', '$B', '$C', '$D', '$E', '$F$G']);
    assert.deepEqual(cmd!.dollars, [[], [], [0], [0], [], [], [2]]);
    assert.deepEqual(cmd!.env, [['X', '$HOME']]);
    assert.deepEqual(cmd!.envDollars, [[]]);
    assert.deepEqual(parseShell('Y=$Z a')[0]!.envDollars, [[0]]);
  });
});
