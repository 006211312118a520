/**
 * Budgets a hostile project meets in the scan itself, each with an input that once held a scan process for
 * its deadline, blew its memory or failed the whole scan: every one here must end fast, with a note.
 */
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { evaluateModule } from '../../src/readers/js/modules.ts';
import { scanReport } from '../../src/scan/index.ts';
import { makeTree } from '../helpers/index.ts';

/** Evaluates a config as a scan would, with nothing else to read. */
const evaluate = (src: string) => evaluateModule(src, { file: '/p/vitest.config.mjs', cwd: '/p', read: async () => undefined });

/** `n` lines doubling a value: `const a1 = a0 + a0;` and so on; the source stays a few hundred bytes. */
const doubling = (first: string, line: (prev: string, next: string) => string, n = 30): string =>
  [first, ...Array.from({ length: n }, (_, i) => line(`a${i}`, `a${i + 1}`))].join('\n');

suite('the config evaluator: building big values spends the budget', () => {
  const cases: Record<string, string> = {
    'string +': doubling("const a0 = 'xxxxxxxx';", (p, n) => `const ${n} = ${p} + ${p};`),
    'template': doubling("const a0 = 'xxxxxxxx';", (p, n) => `const ${n} = \`\${${p}}\${${p}}\`;`),
    'array spread': doubling('const a0 = [1, 2];', (p, n) => `const ${n} = [...${p}, ...${p}];`),
    'push(...)': doubling('const a0 = [1, 2];', (p) => `${p.replace(/\d+$/, '0')}.push(...a0);`),
    'concat': doubling('const a0 = [1, 2];', (p, n) => `const ${n} = ${p}.concat(${p});`),
    'shared nesting': doubling('const a0 = [1];', (p, n) => `const ${n} = [${p}, ${p}];`),
  };
  for (const [name, body] of Object.entries(cases)) {
    test(name, async () => {
      const src = `${body}\nexport default { test: { include: [a30, a0] } };`;
      assert.ok(src.length < 1_200, `a small config (${src.length} bytes)`);
      const heap = process.memoryUsage().heapUsed;
      const started = performance.now();
      const { value, notes } = await evaluate(src);
      // A machine 10x slower still ends well inside this: the unbudgeted evaluator built gigabytes.
      assert.ok(performance.now() - started < 10_000);
      assert.ok(process.memoryUsage().heapUsed - heap < 256 * 1024 * 1024, 'no huge value held');
      assert.equal(value, undefined);
      assert.match(notes.join('\n'), /builds a value of more than|more steps than projdex allows/);
    });
  }

  test('an ordinary config still reads whole', async () => {
    const { value, notes } = await evaluate("const base = ['src/**/*.test.ts'];\nconst more = [...base, 'e2e/' + 'x.test.ts'];\n"
      + 'export default { test: { include: more.concat([`${"a"}/b.test.ts`]) } };');
    assert.deepEqual(JSON.parse(JSON.stringify(value)), { test: { include: ['src/**/*.test.ts', 'e2e/x.test.ts', 'a/b.test.ts'] } });
    assert.deepEqual(notes, []);
  });

  test('a deep unary chain is a note, not a stack overflow', async () => {
    const { value, notes } = await evaluate(`export default { port: ${'-'.repeat(200_000)}1 };`);
    assert.equal(value, undefined);
    assert.match(notes.join('\n'), /nests deeper than projdex allows/);
  });
});
