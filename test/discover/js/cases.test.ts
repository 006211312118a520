import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countCases } from '../../../src/discover/js/cases.ts';

test('cases are counted in code only: comments and string contents never count', () => {
  const text = [
    "import { it } from 'vitest'; // it('in a line comment')",
    "/* it('in a block comment') */ it('one', () => {});",
    "const a = 'it(' + \"test(\" + `specify(${x})`; test.only('two', () => {});",
    "const b = 'it\\'s it(' ; it.each([1])('three', () => {});",
    "const c = 6 / 2 / 1; foo.it('not a case'); xit('four');",
    "const d = 'unterminated it(",
    "fit('five'); test.each`a ${1}`('six');",
    "describe('block', () => { test.describe('x'); });",
  ].join('\n');
  assert.equal(countCases(text), 6);
});

test('an unterminated comment or quote blanks the rest of its text, and a last slash ends it', () => {
  assert.equal(countCases("it('a'); /* it('b')"), 1);
  assert.equal(countCases("it('a'); `it('b')"), 1);
  assert.equal(countCases("it('a'); /"), 1);
  assert.equal(countCases("test('a');\n'it(\nit('b')"), 2);
  assert.equal(countCases(''), 0);
});
