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
  test('a value ends where its expression ends: no-semicolon code after it is not part of it', () => {
    const reader = createLiteralReader('const PORT = getPort()\napp.listen(3000)\nvar app = module.exports = express()\nconst x = new Foo(1)');
    assert.deepEqual(plain(reader.declared('PORT')), { computed: 'getPort()' });
    assert.deepEqual(plain(reader.declared('app')), { computed: 'express()' });
    assert.deepEqual(plain(reader.declared('x')), { computed: 'new Foo(1)' });
  });
  test('the closed world: process.env is unknown, not unset, and only define*/mergeConfig merge', () => {
    const reader = createLiteralReader('const a = process.env.PORT || 3000;\nconst b = defineConfig({ x: [1] }, { x: [2], y: 3 });\nconst c = merge({ x: 1 });');
    assert.deepEqual(plain(reader.declared('a')), { computed: 'process.env.PORT || 3000' });
    assert.deepEqual(plain(reader.declared('b')), { x: [2], y: 3 });
    assert.deepEqual(plain(reader.declared('c')), { computed: 'merge({ x: 1 })' });
  });
  test('each value has its own step budget: a value that builds too much is computed, the next is read', () => {
    const reader = createLiteralReader("const A = 'x'.repeat(1e9);\nconst B = 2;");
    assert.deepEqual(plain(reader.declared('A')), { computed: "'x'.repeat(1e9)" });
    assert.equal(reader.declared('B'), 2);
  });
});
