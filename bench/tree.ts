import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Bump when the layout changes, so cached trees of the old shape are not reused. */
const LAYOUT_VERSION = 1;

/** Where generated trees, stores and profiles live (git-ignored). */
export const CACHE_DIR = join(import.meta.dirname, '..', '.bench');

/** Seeded PRNG (mulberry32): the same seed always gives the same tree. */
export function createRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const JS_TEST = (n: number, runner: string): string =>
  `import { describe, it, expect } from '${runner}';\n\ndescribe('unit ${n}', () => {\n` +
  Array.from({ length: 1 + (n % 4) }, (_, i) => `  it('case ${i}', () => {\n    expect(${i} + 1).toBe(${i + 1});\n  });\n`).join('') +
  '});\n';
const PY_TEST = (n: number): string =>
  Array.from({ length: 1 + (n % 3) }, (_, i) => `def test_case_${n}_${i}():\n    assert ${i} + 1 == ${i + 1}\n`).join('\n');
const SOURCE = (n: number): string => `export const value${n} = ${n};\n`;

/**
 * Lists the files of a synthetic monorepo of about `size` files (exactly `size`, counting the ones the
 * walk must prune): npm workspaces using Jest or Vitest, one pytest package, source trees, test files
 * in the usual shapes, fixtures that only look like tests, `node_modules/` full of test-named files,
 * and a `.git/`. Deterministic for a given `size` and `seed`.
 */
export function planTree(size: number, seed = 1): Map<string, string> {
  const rnd = createRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const files = new Map<string, string>();
  const add = (path: string, content = ''): boolean => {
    if (files.size >= size) return false;
    files.set(path, content);
    return true;
  };

  add('package.json', JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/*'] }, null, 2));
  add('pytest.ini', '[pytest]\ntestpaths = py\n');
  // About 3% of the tree is VCS metadata, which the walk must prune.
  for (let i = 0; i < size * 0.03; i++) add(`.git/objects/${(i % 256).toString(16).padStart(2, '0')}/${i.toString(16).padStart(38, '0')}`, 'x');
  // One pytest package, about 2% of the tree.
  add('py/pyproject.toml', '[project]\nname = "py"\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n');
  for (let i = 0; i < size * 0.02; i++) {
    const group = `g${Math.floor(i / 40)}`;
    if (i % 2 === 0) add(`py/tests/${group}/test_mod${i}.py`, PY_TEST(i));
    else if (i % 7 === 1) add(`py/tests/${group}/helpers_${i}.py`, 'X = 1\n'); // not a test: no test_ prefix
    else add(`py/src/py_pkg/${group}/mod${i}.py`, `X${i} = ${i}\n`);
  }

  const dirsOf = ['core', 'util', 'api', 'ui', 'model', 'io'];
  for (let p = 0; files.size < size; p++) {
    const pkg = `packages/pkg-${String(p).padStart(4, '0')}`;
    const runner = p % 3 === 2 ? 'vitest' : 'jest';
    add(`${pkg}/package.json`, JSON.stringify({
      name: `@mono/pkg-${p}`,
      scripts: { test: runner === 'jest' ? 'jest' : 'vitest run', dev: `vite --port ${5000 + (p % 1000)}` },
      devDependencies: { [runner]: runner === 'jest' ? '^29.7.0' : '^3.2.0' },
    }, null, 2));
    if (runner === 'vitest' && p % 2 === 0) add(`${pkg}/vitest.config.ts`, "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { environment: 'node' } });\n");
    if (runner === 'jest' && p % 2 === 0) add(`${pkg}/jest.config.js`, "module.exports = { testEnvironment: 'node' };\n");
    const perPackage = 200 + Math.floor(rnd() * 400);
    // About 35% of each package is installed dependencies with test-named files: all must be pruned.
    for (let i = 0; i < perPackage * 0.35; i++) {
      const dep = `dep${i % 12}`;
      add(`${pkg}/node_modules/${dep}/${i % 3 === 0 ? 'test' : 'lib'}/f${i}.${pick(['test.js', 'spec.js', 'js'])}`, SOURCE(i));
    }
    for (let i = 0; files.size < size && i < perPackage * 0.65; i++) {
      const dir = `${pkg}/src/${pick(dirsOf)}${rnd() < 0.5 ? `/${pick(dirsOf)}${Math.floor(rnd() * 3)}` : ''}`;
      const r = rnd();
      if (r < 0.08) add(`${dir}/m${i}.test.ts`, JS_TEST(i, runner));
      else if (r < 0.11) add(`${dir}/m${i}.spec.js`, JS_TEST(i, runner));
      else if (r < 0.14) add(`${dir}/__tests__/m${i}.ts`, JS_TEST(i, runner));
      else if (r < 0.17) add(`${dir}/__fixtures__/m${i}.test.json`, '{"fixture": true}\n'); // fixture, not a test
      else if (r < 0.19) add(`${dir}/fixtures/m${i}.txt`, 'data\n');
      else add(`${dir}/m${i}.ts`, SOURCE(i));
    }
  }
  return files;
}

/** Writes a planned tree below `root` (which must not exist yet). */
export function writePlannedTree(root: string, files: Map<string, string>): void {
  const made = new Set<string>();
  for (const [rel, content] of files) {
    const abs = join(root, rel);
    const dir = dirname(abs);
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    writeFileSync(abs, content);
  }
}

/**
 * Returns the root of the cached tree of `size` files, generating it under `.bench/trees/` the first
 * time. A `.done` marker next to the tree says it was written completely; a half-written tree is redone.
 */
export function ensureTree(size: number, { seed = 1, log = (_: string) => {} } = {}): string {
  const name = `mono-${size}-s${seed}-v${LAYOUT_VERSION}`;
  const root = join(CACHE_DIR, 'trees', name);
  const marker = join(CACHE_DIR, 'trees', `${name}.done`);
  if (existsSync(marker) && existsSync(root)) return root;
  rmSync(root, { recursive: true, force: true });
  log(`generating ${size.toLocaleString('en')}-file tree in ${root} ...`);
  const started = performance.now();
  writePlannedTree(root, planTree(size, seed));
  writeFileSync(marker, `${new Date().toISOString()}\n`);
  log(`  done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return root;
}

/**
 * Changes `fraction` of the tree's walked files (appends a line: test files gain a case, configs change
 * but stay valid) and returns an undo function that restores their original bytes, so the cached tree
 * stays as generated.
 */
export function touchFraction(root: string, files: readonly string[], fraction: number, seed = 7): () => void {
  const rnd = createRandom(seed);
  const chosen = files.filter(() => rnd() < fraction);
  const originals = chosen.map((rel) => [rel, readFileSync(join(root, rel))] as const);
  for (const [rel, before] of originals) writeFileSync(join(root, rel), Buffer.concat([before, Buffer.from(editOf(rel))]));
  return () => { for (const [rel, before] of originals) writeFileSync(join(root, rel), before); };
}

/**
 * The line appended to a file, as an edit leaves it: still valid in its own language, so a package.json or
 * a config stays readable (an edit that breaks one is another case, where its package's rows are kept).
 */
function editOf(rel: string): string {
  if (rel.endsWith('.py')) return '\ndef test_added():\n    pass\n';
  if (rel.endsWith('.json')) return '\n';
  if (/\.(?:ini|toml|cfg|ya?ml|txt)$/.test(rel)) return '\n# edited\n';
  return "\nit('added', () => {});\n";
}
