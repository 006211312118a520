import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { evaluateModule, type EvalOptions } from '../../../src/readers/js/modules.ts';
import { readProgram } from '../../../src/readers/shell/program.ts';
import { seededRandom } from '../../helpers/index.ts';

/** Evaluates `src` as /p/cfg.ts with the given neighbour files (absolute paths). */
async function run(src: string, files: Record<string, string> = {}, extra: Partial<EvalOptions> = {}) {
  return evaluateModule(src, { file: '/p/cfg.ts', cwd: '/p', read: async (p) => files[p], ...extra });
}
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

suite('static evaluator of config modules', () => {
  test('module bindings, spreads of local requires and unknown packages keep the known keys', async () => {
    const r = await run([
      "const path = require('path');",
      "const base = require('./jest.base');",
      "module.exports = { ...base, ...require('some-preset/jest'), roots: [path.join(__dirname, 'src')], testEnvironment: 'node' };",
    ].join('\n'), { '/p/jest.base.js': "module.exports = { testMatch: ['**/*.spec.js'], verbose: true };" });
    assert.deepEqual(plain(r.value), {
      testMatch: ['**/*.spec.js'], verbose: true, '...0': { computed: 'some-preset/jest' }, roots: ['/p/src'], testEnvironment: 'node',
    });
    assert.deepEqual(r.files, ['/p/cfg.ts', '/p/jest.base.js']);
  });

  test('ESM imports (default, named, namespace, .js naming a .ts file), defineConfig and regex literals', async () => {
    const r = await run([
      "import shared, { retries } from './shared.js';",
      "import * as ns from './ns.mjs';",
      "import { defineConfig, devices } from '@playwright/test';",
      'export default defineConfig({ ...shared, retries, workers: process.env.CI ? 1 : undefined, grep: ns.grep,',
      '  testMatch: /(functional|integration)\\/.*_tests\\.js/, projects: [{ name: "a", use: { ...devices["Desktop Chrome"] } }] });',
    ].join('\n'), {
      '/p/shared.ts': "export const retries = 2;\nexport default { testDir: './e2e' } satisfies Partial<Config>;",
      '/p/ns.mjs': "export const grep = 'smoke';",
    });
    assert.deepEqual(plain(r.value), {
      testDir: './e2e', retries: 2, grep: 'smoke', testMatch: { regex: '(functional|integration)\\/.*_tests\\.js', flags: '' },
      projects: [{ name: 'a', use: { '...0': { computed: 'devices["Desktop Chrome"]' } } }],
    });
    assert.deepEqual(r.notes, ['assumed process.env.CI is unset, as in a plain `npm test`']);
  });

  test('paths: path.resolve/join/dirname/relative, import.meta, fileURLToPath(new URL), require.resolve, templates', async () => {
    const r = await run([
      "import path from 'node:path'; import { fileURLToPath } from 'node:url';",
      "const here = fileURLToPath(new URL('.', import.meta.url));",
      'export default {',
      "  a: path.resolve(here, 'src'), b: path.dirname(import.meta.filename), c: path.relative('/p/x', '/p/y/z'),",
      "  d: `${import.meta.dirname}/tests`, e: require.resolve('./setup'), f: path.join('a', '..', 'b'), g: process.cwd(),",
      '};',
    ].join('\n'), { '/p/setup.js': '' });
    assert.deepEqual(plain(r.value), { a: '/p/src', b: '/p', c: '../y/z', d: '/p/tests', e: '/p/setup.js', f: 'b', g: '/p' });
  });

  test('functions with if/switch on process.env, .filter(Boolean), .map, Object.assign, mergeConfig', async () => {
    const r = await run([
      "import { mergeConfig, defineConfig, configDefaults } from 'vitest/config';",
      "import viteConfig from './vite.config';",
      'function dirFor(kind) {',
      "  if (process.env.E2E) return 'e2e';",
      "  switch (kind) { case 'unit': return 'src'; default: return 'other'; }",
      '}',
      "const extra = (x) => [x, process.env.SLOW && 'slow/**'].filter(Boolean);",
      'export default mergeConfig(viteConfig, defineConfig({ test: {',
      "  include: ['a', 'b'].map((n) => `${dirFor('unit')}/${n}.test.ts`).concat(extra('more')),",
      "  exclude: [...configDefaults.exclude, 'e2e/**'], ...Object.assign({}, { globals: true }),",
      '} }));',
    ].join('\n'), { '/p/vite.config.ts': "export default defineConfig({ test: { include: ['base'] }, plugins: [react()] })" });
    assert.deepEqual(plain(r.value), {
      test: {
        include: ['base', 'src/a.test.ts', 'src/b.test.ts', 'more'], globals: true,
        exclude: [{ computed: 'configDefaults.exclude', spread: true }, 'e2e/**'],
      },
      plugins: [{ computed: 'react()' }],
    });
    assert.ok(r.notes.includes('took the branch of `if (process.env.E2E)` that runs with the variable unset'));
  });

  test('a function of the config env (defineConfig(({ mode }) => ...)), exported bindings and later assignments', async () => {
    const fn = await run("export default defineConfig(({ mode }) => ({ test: { include: [mode + '/**'] } }))");
    assert.deepEqual(plain(fn.value), { test: { include: ['test/**'] } });
    const later = await run('const config: Config = { a: 1 };\nconfig.b = [2];\nexport { config as default };');
    assert.deepEqual(plain(later.value), { a: 1, b: [2] });
    const built = await run([
      'const ignores = [];', "let dir = 'src';", 'const prod = process.env.NODE_ENV === "production";',
      "if (prod) { ignores.push('unit/'); dir = 'dist'; } else { ignores.push('bundle.js'); }",
      'export default { roots: [dir], testPathIgnorePatterns: ignores.map((f) => `<rootDir>/${f}`) };',
    ].join('\n'));
    assert.deepEqual(plain(built.value), { roots: ['src'], testPathIgnorePatterns: ['<rootDir>/bundle.js'] });
    const loop = await run("const aliases = {};\nfor (const p of readdirSync('x')) { aliases[p] = p; }\nexport default { test: { include: ['a'] }, alias: aliases };");
    assert.deepEqual(plain(loop.value), { test: { include: ['a'] }, alias: {} });
    assert.deepEqual(loop.notes, ['a `for` loop was not run; values it builds are left as they were before it']);
    const asyncFn = await run("module.exports = async () => {\n  const base = { roots: ['<rootDir>/src'] };\n  return { ...base, verbose: true };\n};");
    assert.deepEqual(plain(asyncFn.value), { roots: ['<rootDir>/src'], verbose: true });
    const cjs = await run("exports.testDir = 'x';\nmodule.exports.retries = 1;");
    assert.deepEqual(plain(cjs.value), { testDir: 'x', retries: 1 });
  });

  test('top-level function declarations are hoisted; a function expression is not', async () => {
    const r = await run([
      "export default { test: { projects: [project('threads', 'red'), later()] } };",
      "function project(pool: string, color: string) { return { test: { name: { label: pool, color }, pool } }; }",
      "const later = function named() { return 1; };",
    ].join('\n'));
    assert.deepEqual(plain(r.value), { test: { projects: [
      { test: { name: { label: 'threads', color: 'red' }, pool: 'threads' } }, { computed: 'later()' },
    ] } });
  });

  test('unknown conditions, computed keys and unreadable imports stay unknown', async () => {
    const r = await run("import x from './missing';\nconst k = getKey();\nexport default { [k]: 1, a: os.cpus() > 2 ? 'x' : 'y', b: x };");
    assert.deepEqual(plain(r.value), { '...0': { computed: '[k]: 1' }, a: { computed: "os.cpus() > 2 ? 'x' : 'y'" }, b: { computed: "import from './missing'" } });
    assert.deepEqual(r.notes, ['cfg.ts: ./missing could not be read; its value is unknown']);
  });

  test('budgets: recursion, cycles, import depth, size and steps end in an unknown with a note', async () => {
    const rec = await run('const f = () => f();\nexport default f()');
    assert.equal(rec.value, undefined);
    assert.match(rec.notes[0]!, /nests deeper than projdex allows/);
    const cycle = await run("import a from './a.js';\nexport default { a }", { '/p/a.js': "import c from './cfg.ts';\nexport default c" });
    assert.deepEqual(plain(cycle.value), { a: { computed: "import from './cfg.ts'" } });
    assert.match(cycle.notes.join('\n'), /cycle/);
    const chain: Record<string, string> = {};
    for (let i = 0; i < 10; i++) chain[`/p/m${i}.js`] = `module.exports = require('./m${i + 1}.js');`;
    const deep = await run("module.exports = require('./m0.js')", chain);
    assert.match(deep.notes.join('\n'), /imports nested deeper than 4 were not followed/);
    assert.deepEqual(deep.files, ['/p/cfg.ts', '/p/m0.js', '/p/m1.js', '/p/m2.js', '/p/m3.js']);
    const many: Record<string, string> = {};
    for (let i = 0; i < 30; i++) many[`/p/w${i}.js`] = `module.exports = ${i};`;
    const wide = await run(`module.exports = [${Object.keys(many).map((f) => `require('.${f.slice(2)}')`).join(', ')}]`, many);
    assert.match(wide.notes.join('\n'), /more than 24 modules; \.\/w23\.js was not followed/);
    assert.equal(wide.files.length, 24);
    assert.deepEqual((wide.value as unknown[]).slice(22, 24), [22, { computed: "require('./w23.js')" }]);
    const big = await run("module.exports = require('./big.js')", { '/p/big.js': 'x'.repeat(300_000) });
    assert.match(big.notes.join('\n'), /larger than/);
    const loop = await run(`export default [${'[1,'.repeat(5000)}]`);
    assert.equal(loop.value, undefined);
    // Each term of a sum is two steps: a hundred thousand and one terms pass the 200 000 allowed.
    const steps = await run(`export default ${'1 + '.repeat(100_001)}1`);
    assert.equal(steps.value, undefined);
    assert.match(steps.notes[0]!, /more steps than projdex allows/);
  });

  test('TypeScript-only syntax is skipped', async () => {
    const r = await run([
      "import type { Config } from 'jest';",
      'type Mode = "a" | "b";',
      'interface Opts { dir: string }',
      'enum E { A }',
      "const dir = 'src' as const;",
      'const config: Config<Opts> = { roots: [`<rootDir>/${dir}`], n: 1! };',
      'export default config satisfies Config;',
    ].join('\n'));
    assert.deepEqual(plain(r.value), { roots: ['<rootDir>/src'], n: 1 });
  });

  test('token soup never throws, in the evaluator or the shell reader', async () => {
    const rnd = seededRandom(9);
    const js = ['const', 'x', '=', '(', ')', '{', '}', '[', ']', ',', ';', '=>', '...', 'export', 'default', 'import', 'from', "'./a'",
      'require', 'module', '.', 'exports', 'function', 'return', 'if', 'else', 'switch', 'case', ':', '?', '`${x}`', '1', '/re/', 'process',
      'env', 'new', 'URL', 'as', 'type', '!', '&&', '??', '+', 'try', 'catch', 'throw', 'import.meta.url'];
    const sh = ['if', 'then', 'else', 'fi', 'case', 'esac', 'in', ';;', ')', '(', '{', '}', '&&', '||', '|', ';', 'npm', 'run', 'jest', '$X',
      '"$Y"', 'cd', '--', 'for', 'do', 'done', '[', ']', '-n', '2>&1', '$(', '#'];
    const pick = (list: string[]) => list[Math.floor(rnd() * list.length)]!;
    for (let i = 0; i < 400; i++) {
      const n = Math.floor(rnd() * 60);
      const src = Array.from({ length: n }, () => pick(js)).join(' ');
      const r = await run(src, { '/p/a.ts': src });
      assert.ok(Array.isArray(r.notes));
      assert.ok(Array.isArray(readProgram(Array.from({ length: n }, () => pick(sh)).join(' ')).commands));
    }
  });
});
