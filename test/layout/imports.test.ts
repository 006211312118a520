import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { suite, test } from 'node:test';

const SRC = join(import.meta.dirname, '..', '..', 'src');

/**
 * The layers, lowest first: a folder may import its own folder and those below it, never one above.
 * Entry files at the top of src/ (bin, cli, index) are the highest layer.
 */
const LAYERS: ReadonlyArray<readonly string[]> = [
  ['readers'], ['rules'], ['discover', 'ports'], ['scan'], ['core'], ['server'], ['cli', 'bin.ts', 'cli.ts', 'index.ts'],
];

const rankOf = (top: string): number => LAYERS.findIndex((names) => names.includes(top));

/** Every .ts file under `dir`, relative to src/. */
function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.ts') ? [relative(SRC, full)] : [];
  });
}

/** Relative imports of a file, `import type` and dynamic `import()` included, with their line numbers. */
export function importsOf(text: string): Array<{ spec: string; line: number }> {
  const out: Array<{ spec: string; line: number }> = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\1/gm;
  for (const m of text.matchAll(pattern)) out.push({ spec: m[2]!, line: text.slice(0, m.index).split('\n').length });
  return out;
}

/** Imports that run up the order, as `file:line imports target (layer > layer)`. */
export function upwardImports(files: readonly string[], read: (file: string) => string): string[] {
  const offenders: string[] = [];
  for (const file of files) {
    const from = rankOf(file.split('/')[0]!);
    for (const { spec, line } of importsOf(read(file))) {
      const target = relative(SRC, resolve(SRC, dirname(file), spec));
      const to = rankOf(target.split('/')[0]!);
      if (to > from) offenders.push(`${file}:${line} imports ${target} (${LAYERS[to]![0]} is above ${LAYERS[from]![0]})`);
    }
  }
  return offenders;
}

suite('the layer rule: readers < rules < {discover, ports} < scan < core < server < {cli, index}', () => {
  test('every file under src/ sits in a known layer', () => {
    assert.deepEqual(sources().filter((file) => rankOf(file.split('/')[0]!) === -1), []);
  });

  test('no import under src/ runs up the order', () => {
    assert.deepEqual(upwardImports(sources(), (file) => readFileSync(join(SRC, file), 'utf8')), []);
  });

  test('the check names an upward import, a type-only one and a dynamic one, with file and line', () => {
    const texts: Record<string, string> = {
      'rules/a.ts': "import { x } from '../readers/yaml.ts';\nimport type { S } from '../scan/index.ts';\n",
      'readers/b.ts': "const m = await import('../core/store/store.ts');\n",
      'scan/c.ts': "export { y } from '../discover/go.ts';\n",
    };
    assert.deepEqual(upwardImports(Object.keys(texts), (file) => texts[file]!), [
      'rules/a.ts:2 imports scan/index.ts (scan is above rules)',
      'readers/b.ts:1 imports core/store/store.ts (core is above readers)',
    ]);
  });
});
