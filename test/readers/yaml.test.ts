import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { parseFlow } from '../../src/readers/yaml-flow.ts';
import { parseYaml, parseYamlDocuments } from '../../src/readers/yaml.ts';

suite('parseYaml()', () => {
  test('block maps, block sequences and scalars of every quoting', () => {
    const text = 'a:\n  b: 1\n  c: "x: y"\n  d: \'it\'\'s\'\n  e: plain text\nlist:\n  - one\n  - 2\n  - ~\n';
    assert.deepEqual(parseYaml(text), { a: { b: 1, c: 'x: y', d: "it's", e: 'plain text' }, list: ['one', 2, null] });
  });

  test('indentless sequences under a key and maps inside sequence items', () => {
    const text = 'ports:\n- target: 80\n  published: "8080"\n- "3000"\nnext: true\n';
    assert.deepEqual(parseYaml(text), { ports: [{ target: 80, published: '8080' }, '3000'], next: true });
  });

  test('flow sequences and maps, also across lines', () => {
    assert.deepEqual(parseYaml('p: ["80:80", \'443\', 8080]\nm: { a: 1, b: [2, 3] }\n'), { p: ['80:80', '443', 8080], m: { a: 1, b: [2, 3] } });
    assert.deepEqual(parseYaml('test: [\n  "CMD", "curl",\n  "http://localhost:80"\n]\n'), { test: ['CMD', 'curl', 'http://localhost:80'] });
  });

  test('comments, anchors, tags and aliases', () => {
    const text = '# head\nbase: &b\n  x: 1 # trailing\nuse:\n  <<: *b\n  url: http://a#frag\n  t: !!str 5\n';
    assert.deepEqual(parseYaml(text), { base: { x: 1 }, use: { '<<': null, url: 'http://a#frag', t: 5 } });
  });

  test('block scalars and plain multi-line scalars', () => {
    assert.deepEqual(parseYaml('cmd: >\n  python manage.py\n  runserver 0:8000\nlit: |\n  a\n  b\n'), { cmd: 'python manage.py runserver 0:8000', lit: 'a\nb' });
  });

  test('flat config files: .mocharc.yml and pnpm-workspace.yaml shapes', () => {
    const mocharc = '# unit tests only\nspec: test/unit\nrecursive: true\nextension:\n  - js\n  - ts\nrequire: ts-node/register\n';
    assert.deepEqual(parseYaml(mocharc), { spec: 'test/unit', recursive: true, extension: ['js', 'ts'], require: 'ts-node/register' });
    const pnpm = "packages:\n  - 'packages/*'\n  # docs site has no tests\n  - '!packages/docs'\ncatalog:\n  react: ^19.0.0\n";
    assert.deepEqual(parseYaml(pnpm), { packages: ['packages/*', '!packages/docs'], catalog: { react: '^19.0.0' } });
  });

  test('documents are split on ---', () => {
    assert.deepEqual(parseYamlDocuments('a: 1\n---\nb: 2\n'), [{ a: 1 }, { b: 2 }]);
  });

  test('a __proto__ key is an own data property, not a prototype change', () => {
    const doc = parseYaml('__proto__:\n  polluted: 1\n') as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(doc), Object.prototype);
    assert.deepEqual(Object.keys(doc), ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('bad YAML gives partial results and never throws', () => {
    for (const text of ['a: [1, 2', '"unterminated\n  x: {', ': : :\n  - [\n', '\t- a\n\tb: c', '- a\nb: c\n', '{{{{', ']]]']) {
      assert.doesNotThrow(() => parseYaml(text), text);
    }
    assert.deepEqual(parseYaml('a:\n  b: 1\n c: 2\n'), { a: { b: 1 } });
  });
});

suite('parseFlow()', () => {
  test('nested flow collections, quoted keys and typed scalars', () => {
    assert.deepEqual(parseFlow('{ "a b": [1, \'x, y\', ~], c: { d: true } }'), { 'a b': [1, 'x, y', null], c: { d: true } });
    assert.deepEqual(parseFlow('[http://h:80/x, "q"]'), ['http://h:80/x', 'q']);
  });
});
