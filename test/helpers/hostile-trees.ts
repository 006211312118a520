import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
/**
 * Hostile project trees, each a few kilobytes to a few megabytes, shaped after known attacks on readers and scans:
 * expansions that blow up, patterns that backtrack, deep nesting. Shared by the hostile-*.test.ts files.
 */
const long = (unit: string, n: number): string => unit.repeat(n);
const VITEST = JSON.stringify({ scripts: { test: 'vitest' }, devDependencies: { vitest: '^3.0.0' } });
const victims = (n: number, name: (i: number) => string): Record<string, string> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [name(i), "test('x', () => {});"]));

/** A Makefile whose variables expand into each other: 3 levels of 200 references each. */
function makefileBomb(): string {
  const lines = ['A0 = 8000'];
  for (let v = 1; v <= 20; v++) lines.push(`A${v} = ${long(`$(A${v - 1}) `, 200)}`);
  lines.push('run:', `\tpython manage.py runserver $(A20)`);
  return lines.join('\n') + '\n';
}

function dockerBomb(): string {
  const lines = ['FROM node:22', 'ARG P0=3000'];
  for (let v = 1; v <= 20; v++) lines.push(`ARG P${v}="${long(`\${P${v - 1}} `, 200)}"`);
  lines.push('EXPOSE $P20', 'CMD ["node", "server.js", "--port", "$P20"]');
  return lines.join('\n') + '\n';
}

export const HOSTILE: Record<string, Record<string, string>> = {
  'makefile-expansion': { Makefile: makefileBomb() },
  'dockerfile-expansion': { Dockerfile: dockerBomb() },
  'makefile-whitespace': { Makefile: `run:${long(' ', 300_000)}x\n${long(' \t', 200_000)}\\\n` },
  'jest-test-regex': {
    'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29.0.0' }, jest: { testRegex: '(a+)+$', testPathIgnorePatterns: ['(x+x+)+y'] } }),
    ...victims(20, (i) => `src/${long('a', 40 + i)}!.js`),
  },
  'jest-test-regex-lookahead': {
    'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29.0.0' }, jest: { testRegex: '(?=a)(a+)+$' } }),
    ...victims(20, (i) => `src/${long('a', 40 + i)}!.js`),
  },
  'vitest-extglob': {
    'package.json': VITEST,
    'vitest.config.ts': `export default { test: { include: ['**/+(+(a))x', '**/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*ab', '**/!(+(a))x*(*(a))b'] } };`,
    ...victims(20, (i) => `src/${long('a', 40 + i)}.test.ts`),
  },
  'vitest-braces': {
    'package.json': VITEST,
    'vitest.config.ts': `export default { test: { include: ['${long('{a,b}', 24)}.test.ts', '${long('{a,{b,{c,', 300)}'] } };`,
    'src/a.test.ts': "test('a', () => {});",
  },
  'pytest-python-files': {
    'pytest.ini': `[pytest]\npython_files = ${long('*a', 40)}b test_*.py\n`,
    ...victims(20, (i) => `tests/${long('a', 60 + i)}.py`),
    'tests/test_ok.py': 'def test_ok():\n    pass\n',
  },
  'rspec-pattern': {
    Gemfile: "gem 'rspec'\n",
    '.rspec': `--pattern ${long('*a', 30)}b\n`,
    ...victims(10, (i) => `spec/${long('a', 60 + i)}_spec.rb`),
  },
  'xml-open-tags': {
    'phpunit.xml': long('<a', 400_000),
    'pom.xml': `<project>${long('<dependency><!--', 50_000)}</project>`,
    'composer.json': '{"require-dev":{"phpunit/phpunit":"^10"}}',
  },
  'deep-nesting': {
    'package.json': `{"scripts":{"test":"vitest"},"devDependencies":{"vitest":"3"},"x":${long('[', 200_000)}}`,
    'vitest.config.ts': `export default { test: { include: ${long('[', 200_000)} } };`,
    '.mocharc.yml': long('- ', 100_000) + 'x\n' + long('[', 100_000),
    'pyproject.toml': `[tool.pytest.ini_options]\nx = ${long('[', 200_000)}\n`,
    'tox.ini': `[tox]\n${long('[', 200_000)}\n`,
    'tsconfig.json': long('{"a":', 200_000),
    'docker-compose.yml': `services:\n  web:\n    ports: ${long('[', 100_000)}\n`,
  },
  // Listen ports in source: long identifiers, runs of blank lines, unclosed comments, calls without an end.
  'source-listen': {
    'main.go': `package main\n${long('a', 200_000)}Env(\n${long('\n', 100_000)}${long('/*', 50_000)}`,
    'cmd/api/main.go': `${long('\t\n', 100_000)}${long('flag.Int(', 20_000)}${long('x := os.Getenv("PORT")\n', 5_000)}`,
    'src/main.rs': `${long('"a:1', 60_000)}${long('SocketAddr::new(', 10_000)}${long('default_value = 1 ', 10_000)}`,
    'app.py': `${long('uvicorn.run(port=', 20_000)}`,
    'justfile': `${long('a := "1"\n', 20_000)}${long('x', 100_000)} ${long(' ', 100_000)}\n${long('    {{a}} {{', 20_000)}\n`,
    'Taskfile.yml': `tasks:\n${Array.from({ length: 2_000 }, (_, i) => `  t${i}: vite --port {{.P}}{{.P}}\n`).join('')}`,
  },
  // READMEs: a shell block of one command continued for 200 KB, unclosed fences, prompts without end; more
  // READMEs than the budget; runtime config folders past their budget with deep and wide documents.
  'readme-config': {
    'README.md': `\`\`\`sh\n${long('flask run \\\n', 20_000)}mkdocs serve\n\`\`\`\n${long('```console\n$ ', 20_000)}`,
    ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}/README.md`, `${long('```bash\ndocker run -p 1:1 x \\\n', 5_000)}`])),
    'config/default.json': `{"server":${long('{"port":', 50_000)}1}`,
    'config.yml': `${long('http.port: 1\n', 20_000)}`,
    ...Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`config/c${i}.toml`, `[server]\nport = ${1000 + i}\n`])),
  },
  // Compose files that extend each other in a ring, and many yaml files in a docker folder.
  'compose-extends': {
    'compose.yaml': `services:\n${Array.from({ length: 200 }, (_, i) => `  s${i}:\n    extends: { file: docker/b.yml, service: s${i} }\n`).join('')}`,
    'docker/b.yml': `services:\n${Array.from({ length: 200 }, (_, i) => `  s${i}:\n    extends: { file: ../compose.yaml, service: s${i} }\n    ports: ["${1000 + i}:80"]\n`).join('')}`,
    ...Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`docker/x${i}.yaml`, 'services:\n  a:\n    image: x\n'])),
  },
};

/** A folder chain of `levels` names of 250 characters: every path below it starts with ~250 x levels characters. */
export function deepLongFolders(root: string, levels: number): string {
  let rel = '';
  for (let i = 0; i < levels; i++) rel += `${String(i).padStart(3, '0')}${'x'.repeat(247)}/`;
  mkdirSync(join(root, rel), { recursive: true });
  return rel;
}
