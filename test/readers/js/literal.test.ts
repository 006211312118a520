import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { createLiteralReader, getKey, readConfigText } from '../../../src/readers/js/literal.ts';
import { tokenize } from '../../../src/readers/js/tokens.ts';

const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

suite('readConfigText()', () => {
  test('defineConfig objects, regexes, `as const` and computed values with their source', () => {
    const src = 'export default defineConfig({ test: { include: ["a/**"] as const, exclude: process.env.X ? [] : ["b"], re: /x\\/y/i } });';
    assert.deepEqual(plain(readConfigText(src)), { test: { include: ['a/**'], exclude: { computed: 'process.env.X ? [] : ["b"]' }, re: { regex: 'x\\/y', flags: 'i' } } });
  });
  test('an exported name follows its declaration, past a type annotation and commented-out code', () => {
    const src = '// const config = { a: 0 };\nconst config: Config = { a: 1 };\nexport default config;\n';
    assert.deepEqual(plain(readConfigText(src)), { a: 1 });
    assert.equal(readConfigText('const config = null;\nmodule.exports = config;'), null);
  });
  test('getKey reports keys behind a computed spread as computed', () => {
    const config = readConfigText('module.exports = { ...base, a: { b: 2 } }');
    assert.deepEqual(getKey(config, 'a.b'), { found: true, value: 2 });
    assert.deepEqual(plain(getKey(config, 'c')), { found: true, value: { computed: 'base' } });
    assert.deepEqual(getKey(config, 'a.c'), { found: false });
  });
});

suite('createLiteralReader()', () => {
  test('objectsUnder finds keyed objects and arrow-returned objects outside strings and comments', () => {
    const src = "// server: { port: 1 }\nconst s = 'server: { port: 2 }';\nexport default { a: { server: () => ({ port: 3 }) }, x: obj.server, preview: { port } };";
    assert.deepEqual(plain(createLiteralReader(src).objectsUnder(['server', 'preview'])), [['server', { port: 3 }], ['preview', { port: { computed: 'port' } }]]);
  });
  test('declared reads the first declaration of a name', () => {
    const reader = createLiteralReader('let P: number = 5180 as const;\nvar Q = P;\nconst PX = 1;');
    assert.equal(reader.declared('P'), 5180);
    assert.deepEqual(plain(reader.declared('Q')), { computed: 'P' });
    assert.equal(reader.declared('R'), undefined);
  });
  test('the tokenizer skips comments and tells regex literals from division', () => {
    assert.deepEqual(tokenize('a / b /* c */ // d\n(/e/g)').map((t) => t.kind), ['id', 'punct', 'id', 'punct', 'regex', 'punct']);
  });
});
