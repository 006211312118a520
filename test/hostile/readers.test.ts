import assert from 'node:assert/strict';
import { after, before, suite, test } from 'node:test';
import { globRisk, globToRegExp } from '../../src/rules/glob.ts';
import { projectRegExp, regexRisk } from '../../src/readers/safe-regex.ts';
import { parseMakefile } from '../../src/ports/makefile.ts';
import { parseDockerfile } from '../../src/ports/dockerfile.ts';
import { parseFlow } from '../../src/readers/yaml-flow.ts';
import { readConfigText } from '../../src/readers/js/literal.ts';
import { parseXml, xmlFind } from '../../src/readers/xml.ts';
import { readerNotes } from '../../src/readers/budget.ts';
import { call, makeTree, serve } from '../helpers/index.ts';
import { HOSTILE } from '../helpers/hostile-trees.ts';

/** Runs `fn` as a scan would, collecting what it notes. */
function noted<T>(fn: () => T): { value: T; notes: string[] } {
  const notes: string[] = [];
  const value = readerNotes.run((m) => notes.push(m), fn);
  return { value, notes };
}

// What each hostile tree must leave in the scan's notes: the budget it hit, said in words.
const EXPECTED_NOTES: Record<string, RegExp | null> = {
  'makefile-expansion': /Makefile variables expand past 64 KB/,
  'dockerfile-expansion': null,
  'makefile-whitespace': null,
  'jest-test-regex': null,
  'jest-test-regex-lookahead': /regex "\(\?=a\)\(a\+\)\+\$" is not used: it has a repeated group/,
  'vitest-extglob': /glob "\*\*\/\+\(\+\(a\)\)x" is not used: it repeats a pattern inside a repetition/,
  'vitest-braces': /its braces expand to more than 1024 patterns/,
  'pytest-python-files': /more than 6 wildcards in one path segment/,
  'rspec-pattern': /more than 6 wildcards in one path segment/,
  'xml-open-tags': null,
  'deep-nesting': /nests deeper than 256/,
  'source-listen': null,
  'compose-extends': /only the first 200 were read for compose services/,
  'readme-config': /config files; only the first 100 were read for listen ports/,
};

suite('hostile files: every scan finishes well inside its deadline, and the server answers', { timeout: 240_000 }, () => {
  // One server for every tree (each its own project): what one tree does to the scan process or the server
  // must not keep the next tree's scan or /health from answering either.
  let url = '';
  const closing: Array<() => unknown> = [];
  before(async () => {
    // The deadline is the bound: a scan that backtracks or expands without end would be a 504 here.
    ({ url } = await serve({ after: (fn) => closing.push(fn) }, { scanWorker: { deadlineMs: 60_000, processes: 1 } }));
  });
  after(async () => { for (const fn of closing) await fn(); });
  for (const [name, files] of Object.entries(HOSTILE)) {
    test(name, { timeout: 90_000 }, async (t) => {
      const root = makeTree(t, files);
      const project = (await call(`${url}/api/projects`, 'POST', { name, path: root })).body;
      const res = await call(`${url}/api/projects/${project.id}/scan`, 'POST');
      assert.equal(res.status, 200, JSON.stringify(res.body)?.slice(0, 300));
      const expected = EXPECTED_NOTES[name];
      if (expected) assert.ok(res.body.notes.some((n: string) => expected.test(n)), JSON.stringify(res.body.notes).slice(0, 500));
      for (const note of res.body.notes) assert.ok(note.length <= 401, 'notes are bounded');
      assert.equal((await call(`${url}/health`)).status, 200);
    });
  }
});

suite('budgets, one by one', () => {
  test('project regexes: lookaround-free ones are left to the linear engine, risky lookaround ones refused', () => {
    assert.equal(regexRisk('(a+)+$', { linearFallback: true }), null);
    assert.match(regexRisk('(a+)+$', { linearFallback: false }) ?? '', /repeated group/);
    assert.match(regexRisk('(?=a)(a|aa)*b', { linearFallback: true }) ?? '', /repeated group/);
    assert.match(regexRisk('(x)\\1(a*)*', { linearFallback: true }) ?? '', /backreference/);
    // Polynomial backtracking beside a lookaround, and backreferences, which no engine runs in linear time.
    assert.match(regexRisk('^(?=.*.*.*.*x)', { linearFallback: true }) ?? '', /more than 2 open-ended repetitions/);
    assert.match(regexRisk('(?=.*a.*b)', { linearFallback: true }) ?? '', /more than 1 open-ended repetition .* without a leading \^/);
    assert.match(regexRisk('(.*)(.*)\\2\\1x', { linearFallback: true }) ?? '', /backreference/);
    assert.match(regexRisk('(?<q>.*)\\k<q>', { linearFallback: true }) ?? '', /backreference/);
    assert.equal(regexRisk('^(?!.*node_modules).*\\.test\\.js$', { linearFallback: true }), null);
    assert.equal(regexRisk('(?<!\\.d)\\.ts$', { linearFallback: true }), null);
    assert.equal(regexRisk('(?<!x)a+\\.test\\.js$', { linearFallback: true }), null);
    // Jest's own default testRegex passes both ways.
    assert.equal(regexRisk('(/__tests__/.*|(\\.|/)(test|spec))\\.[jt]sx?$', { linearFallback: false }), null);
    assert.match(regexRisk('a'.repeat(1001)) ?? '', /longer than 1000/);
    const reasons: string[] = [];
    assert.equal(projectRegExp('(', '', (r) => reasons.push(r)), null);
    assert.deepEqual(reasons, ['it is not a valid regular expression']);
    assert.ok(projectRegExp('\\.spec\\.ts$')?.test('a.spec.ts'));
  });

  test('globs: budgets on length, brace expansions, wildcards and nested repetition; refused ones match nothing', () => {
    assert.equal(globRisk('**/?(*.)+(spec|test).[jt]s?(x)'), null);
    assert.equal(globRisk('src/**/*.{test,spec}.{js,jsx,ts,tsx}'), null);
    assert.equal(globRisk('{a,b}'.repeat(10)), null);
    assert.match(globRisk('{a,b}'.repeat(11)) ?? '', /more than 1024 patterns/);
    assert.match(globRisk('{1..1000}{a,b}') ?? '', /more than 1024/);
    assert.match(globRisk('*(a*)') ?? '', /inside a repetition/);
    assert.match(globRisk('a/*a*a*a*a*a*a*a') ?? '', /more than 6 wildcards/);
    assert.equal(globRisk('*a*a*a/*a*a*a'), null);
    assert.match(globRisk('!(x)*a*b*c*d') ?? '', /!\(\.\.\.\)/);
    const { value, notes } = noted(() => globToRegExp('+(+(a))'));
    assert.equal(value.test('a'), false);
    assert.match(notes[0]!, /is not used/);
  });

  test('globs without `dot` need no lookahead for a leading wildcard, and keep their meaning', () => {
    for (const [glob, yes, no] of [['*.js', 'a.js', '.a.js'], ['?a', 'ba', '.a'], ['[!x]b', 'ab', '.b'], ['**/*', 'a/b', 'a/.b']] as const) {
      const re = globToRegExp(glob);
      assert.equal(re.test(yes), true, `${glob} ${yes}`);
      assert.equal(re.test(no), false, `${glob} ${no}`);
      assert.doesNotMatch(re.source, /\(\?[=!]/, glob);
    }
  });

  test('Makefile: self-feeding variables stop at the budget with a note; continuations join in linear time', () => {
    const { value, notes } = noted(() => parseMakefile(HOSTILE['makefile-expansion']!.Makefile!));
    assert.equal(value.length, 1);
    assert.ok(value[0]![1].length <= 64 * 1024);
    assert.equal(notes.length, 1);
    assert.deepEqual(parseMakefile('PORT ?= 8000\nrun: \\\n   \t  deps\n\tpython -m http.server \\\n\t\t$(PORT)\n'), [['run', 'python -m http.server 8000']]);
    assert.deepEqual(parseMakefile(HOSTILE['makefile-whitespace']!.Makefile!), []);
  });

  test('Dockerfile: an expansion past the budget is left as written, with a note', () => {
    const { value, notes } = noted(() => parseDockerfile(`ARG A="${'x'.repeat(70_000)}"\nEXPOSE $A 80\n`));
    assert.deepEqual(value.exposed, [80]);
    assert.match(notes[0]!, /Dockerfile variables expand past 64 KB/);
    assert.deepEqual(parseDockerfile('ARG PORT=3000\nEXPOSE ${PORT}\n').exposed, [3000]);
  });

  test('deep nesting is a note, never a stack overflow: YAML flow, JS literals, XML', () => {
    const deepYaml = noted(() => parseFlow('['.repeat(100_000)));
    assert.equal(deepYaml.value, undefined);
    assert.equal(deepYaml.notes.length, 1);
    const deepJs = noted(() => readConfigText(`export default ${'{a:'.repeat(50_000)}1${'}'.repeat(50_000)}`));
    assert.equal(deepJs.value, undefined);
    assert.match(deepJs.notes[0]!, /deeper than 256 brackets/);
    assert.equal(JSON.stringify(readConfigText('export default { a: [[1]] }')), '{"a":[[1]]}');
    const deepXml = noted(() => parseXml('<a>'.repeat(5_000) + '<directory>t</directory>' + '</a>'.repeat(5_000)));
    assert.equal(xmlFind(deepXml.value, 'directory')[0]?.text, 't');
    assert.match(deepXml.notes[0]!, /deeper than 256 elements/);
  });

  test('XML: open brackets without an end, and quotes, are read in one pass', () => {
    const doc = parseXml(`<p a="x>y" b='1'><d>t</d><!-- <d>no</d> --><![CDATA[<raw>]]>${'<a'.repeat(10_000)}</p>`);
    const p = xmlFind(doc, 'p')[0]!;
    assert.deepEqual({ ...p.attrs }, { a: 'x>y', b: '1' });
    assert.deepEqual(xmlFind(doc, 'd').map((d) => d.text), ['t']);
    assert.match(p.text, /^<raw><a<a/);
  });
});
