/**
 * Budgets a hostile project meets in the scan itself, each with an input that once held a scan process for
 * its deadline, blew its memory or failed the whole scan: every one here must end fast, with a note.
 */
import assert from 'node:assert/strict';
import { renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { evaluateModule } from '../../src/readers/js/modules.ts';
import { parseMakefile } from '../../src/ports/makefile.ts';
import { guarded } from '../../src/rules/guarded.ts';
import { createContext } from '../../src/scan/context.ts';
import { scanReport } from '../../src/scan/index.ts';
import { walk } from '../../src/scan/walk/walk.ts';
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

suite('a scan over hostile files answers, with notes, and keeps what it could read', () => {
  const VITEST = JSON.stringify({ scripts: { test: 'vitest' }, devDependencies: { vitest: '^3.0.0' } });

  test('a Dockerfile naming every port: the rows are capped, with a note', async (t) => {
    const lines = ['FROM node:22', ...Array.from({ length: 65_535 }, (_, i) => `EXPOSE ${i + 1}`)];
    const root = makeTree(t, { Dockerfile: lines.join('\n') + '\n', 'docker/Dockerfile': lines.join('\n') + '\n' });
    const report = await scanReport(root);
    assert.equal(report.ports.length, 1_000);
    assert.equal(report.ports[0]!.port, 1);
    assert.match(report.notes.join('\n'), /name 131070 ports; only the lowest 1000 are listed/);
  });

  // Each file below once threw out of its reader (a stack overflow) and failed the whole scan.
  const cases: Record<string, { files: Record<string, string>; note: RegExp }> = {
    'nested //go:build': {
      files: { 'go.mod': 'module x\n', 'b_test.go': `//go:build ${'('.repeat(100_000)}linux${')'.repeat(100_000)}\npackage x\n` },
      note: /go:build/,
    },
    'deep package.json': {
      files: { 'package.json': `{"scripts":{"test":"vitest"},"x":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}` },
      note: /JSON file nests deeper than 256 brackets(.|\n)*package\.json could not be read/,
    },
    '100k nested elements in phpunit.xml': {
      files: { 'composer.json': '{"require-dev":{"phpunit/phpunit":"^10"}}', 'phpunit.xml': '<a>'.repeat(100_000) + '</a>'.repeat(100_000) },
      note: /nests deeper than 256 elements/,
    },
  };
  for (const [name, { files, note }] of Object.entries(cases)) {
    test(name, async (t) => {
      const root = makeTree(t, { ...files, 'web/package.json': VITEST, 'web/src/a.test.ts': "test('a', () => {});" });
      const report = await scanReport(root);
      assert.match(report.notes.join('\n'), note);
      // The rest of the project is still read.
      assert.ok(report.tests.some((x) => x.file_path === 'web/src/a.test.ts'), JSON.stringify(report.tests));
    });
  }
});

test('a package.json or .env that cannot be read is a note, never taken as absent', async (t) => {
  const big = `{"scripts":{"test":"vitest"},"x":"${'x'.repeat(1_100_000)}"}`;
  const root = makeTree(t, { 'package.json': big, '.env': `PORT=3000\nX=${'x'.repeat(1_100_000)}\n`, 'src/a.test.ts': '' });
  const { notes } = await scanReport(root);
  assert.match(notes.join('\n'), /package\.json could not be read as a JSON object/);
  assert.match(notes.join('\n'), /\.env could not be read .*its ports are not listed/);
});

test('a rule that throws loses its own rows, with a note; the scan goes on', async () => {
  const notes: string[] = [];
  const rows = await guarded({ note: (m) => notes.push(m) }, 'discoverGo', async () => { throw new RangeError('Maximum call stack size exceeded'); });
  assert.deepEqual(rows, []);
  assert.deepEqual(notes, ['Go discovery failed and was skipped (a file nests or repeats past what it can follow): its tests are not listed']);
  assert.deepEqual(await guarded({ note: () => assert.fail() }, 'x', async () => ['a']), ['a']);
});

test('a folder swapped for a link after the walk: reads below it refuse to cross the link', async (t) => {
  const root = makeTree(t, { 'sub/package.json': '{"name":"inside"}', 'top.json': '{}' });
  const outside = makeTree(t, { 'package.json': '{"name":"SECRET"}' });
  const ctx = createContext(root, await walk(root));
  // The walk saw sub/ as a folder; now it is a link to a folder outside the project.
  renameSync(join(root, 'sub'), join(root, 'sub-old'));
  symlinkSync(outside, join(root, 'sub'));
  assert.equal(await ctx.read('sub/package.json'), undefined);
  assert.match(ctx.notes.join('\n'), /sub\/package\.json was not read: a folder on its path became a link/);
  assert.equal(await ctx.read('top.json'), '{}', 'files on a clean path are read');
});

test('a 500 KB Makefile of continuation lines is joined in linear time', () => {
  const text = 'run: \\\n' + 'x \\\n'.repeat(130_000) + '\tpython -m http.server 8000\n';
  const started = performance.now();
  assert.deepEqual(parseMakefile(text), []);
  // About 0.3 s; joining by growing one string took 25 s (quadratic).
  assert.ok(performance.now() - started < 5_000, `${(performance.now() - started).toFixed(0)} ms`);
  assert.deepEqual(parseMakefile('run: \\\n  deps \\\n\n\tnode s.js --port \\\n\t  3000\n'), [['run', 'node s.js --port 3000']]);
});
