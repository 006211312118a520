import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

const DIR = new URL('../../../src/readers/js/', import.meta.url);
/** The evaluator's parts in order, then the static reader: each may import only parts before it. */
const ORDER = ['tokens', 'lit', 'values', 'cursor', 'builtins', 'functions', 'literals', 'calls', 'expressions',
  'statements', 'top', 'modules', 'literal'];

test('each part of readers/js imports only parts before it (no cycle, one cursor)', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3));
  assert.deepEqual([...files].sort(), [...ORDER].sort(), 'a new part gets its place in ORDER');
  const wrong: string[] = [];
  for (const part of files) {
    const text = readFileSync(new URL(`${part}.ts`, DIR), 'utf8');
    for (const m of text.matchAll(/from '\.\/([\w-]+)\.ts'/g)) {
      if (ORDER.indexOf(m[1]!) >= ORDER.indexOf(part)) wrong.push(`${part}.ts imports ${m[1]}.ts`);
    }
    // The cursor is written once: no part keeps its own `peek`.
    if (part !== 'cursor' && /const peek\s*=/.test(text)) wrong.push(`${part}.ts defines its own peek`);
  }
  assert.deepEqual(wrong, []);
});
