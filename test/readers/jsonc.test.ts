import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { parseJsonc } from '../../src/readers/jsonc.ts';

suite('parseJsonc()', () => {
  test('parses plain JSON', () => {
    assert.deepEqual(parseJsonc('{"a":[1,{"b":null}]}'), { a: [1, { b: null }] });
  });

  test('drops line and block comments and trailing commas, also when a comment sits before the bracket', () => {
    assert.deepEqual(parseJsonc('{\n  // top\n  "a": 1, /* mid */ "b": [1, 2, /* last */],\n  "c": 3, // trailing\n}'), { a: 1, b: [1, 2], c: 3 });
  });

  test('leaves comment and comma look-alikes inside strings alone', () => {
    assert.deepEqual(parseJsonc('{"url": "http://x/*y*/", "s": ",]", "q": "say \\"hi\\", // not a comment", }'), { url: 'http://x/*y*/', s: ',]', q: 'say "hi", // not a comment' });
  });

  test('returns undefined for text that is not JSON even with comments removed', () => {
    for (const text of ['{bad', '', '{"a": 1} trailing', '/* unterminated']) assert.equal(parseJsonc(text), undefined, text);
  });
  test('a leading byte order mark is not part of the JSON', () => {
    assert.deepEqual(parseJsonc('\uFEFF{ "scripts": { "test": "jest" } }'), { scripts: { test: 'jest' } });
    assert.deepEqual(parseJsonc('\uFEFF{ "a": 1, // c\n}'), { a: 1 });
  });
});
