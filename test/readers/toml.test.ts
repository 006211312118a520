import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { parseToml, tomlGet, tomlStrings } from '../../src/readers/toml.ts';

const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

suite('parseToml()', () => {
  test('reads tables, dotted keys, arrays of tables and workspace members', () => {
    const doc = parseToml([
      '# Cargo workspace', '[workspace]', 'members = [', '  "crates/*",  # globbed', '  "tools/cli",', ']', 'exclude = ["crates/old"]',
      '', '[package]', 'name = "app"', 'edition = "2021"', 'autotests = false', 'version.workspace = true',
      '[[test]]', 'name = "it"', 'path = "tests/it/main.rs"', '[[test]]', "name = 'other'", 'harness = false',
    ].join('\n'));
    assert.deepEqual(tomlStrings(tomlGet(doc, 'workspace.members')), ['crates/*', 'tools/cli']);
    assert.equal(tomlGet(doc, 'package.autotests'), false);
    assert.deepEqual(plain(tomlGet(doc, 'package.version')), { workspace: true });
    assert.deepEqual(plain(doc.test), [{ name: 'it', path: 'tests/it/main.rs' }, { name: 'other', harness: false }]);
  });

  test('reads all four string kinds, escapes and inline tables', () => {
    const doc = parseToml([
      'a = "tab\\there \\u00e9"', "b = 'C:\\raw'", 'c = """', 'line1', 'line2 \\', '   joined"""', "d = '''", "x'y'''",
      'e = { path = "src/lib.rs", test = false, nested.k = 1 }', 'f = 1_000', 'g = 3.5', 'h = 1979-05-27T07:32:00Z',
    ].join('\n'));
    assert.equal(doc.a, 'tab\there é');
    assert.equal(doc.b, 'C:\\raw');
    assert.equal(doc.c, 'line1\nline2 joined');
    assert.equal(doc.d, "x'y");
    assert.deepEqual(plain(doc.e), { path: 'src/lib.rs', test: false, nested: { k: 1 } });
    assert.equal(doc.f, 1000);
    assert.equal(doc.g, 3.5);
    assert.equal(doc.h, '1979-05-27T07:32:00Z');
  });

  test('pyproject [tool.pytest.ini_options] with quoted keys', () => {
    const doc = parseToml('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n"python_files" = "check_*.py"\n');
    assert.deepEqual(tomlStrings(tomlGet(doc, 'tool.pytest.ini_options.testpaths')), ['tests']);
    assert.equal(tomlGet(doc, 'tool.pytest.ini_options.python_files'), 'check_*.py');
  });

  test('bad lines are skipped, never thrown', () => {
    const doc = parseToml('ok = 1\nbroken = [1, 2\n= 3\n[unclosed\nname = "x\nlater = true\n');
    assert.equal(doc.ok, 1);
    assert.equal(doc.later, true);
    assert.doesNotThrow(() => parseToml('"""\n[[[\n{=}\n\\u'));
    assert.equal(tomlGet(parseToml('a = 1'), 'a.b'), undefined);
  });

  test('__proto__ keys stay plain data', () => {
    const doc = parseToml('[__proto__]\npolluted = true\n');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(tomlGet(doc, '__proto__.polluted'), true);
  });
});
