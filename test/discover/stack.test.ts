import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { createContext } from '../../src/scan/context.ts';
import { detectStack } from '../../src/discover/stack.ts';
import { walk } from '../../src/scan/walk/walk.ts';
import { makeTree } from '../helpers/index.ts';

const cases: Array<[stack: string | null, files: Record<string, string>]> = [
  ['next', { 'package.json': '{"dependencies":{"next":"15","react":"19"}}' }],
  ['nuxt', { 'package.json': '{"devDependencies":{"nuxt":"3","vue":"3"}}' }],
  ['sveltekit', { 'package.json': '{"devDependencies":{"@sveltejs/kit":"2","vite":"6"}}' }],
  ['vite', { 'package.json': '{"devDependencies":{"vite":"6"},"dependencies":{"react":"19"}}' }],
  ['nestjs', { 'package.json': '{"dependencies":{"@nestjs/core":"10","express":"4"}}' }],
  ['express', { 'package.json': '{"dependencies":{"express":"5"}}' }],
  ['node', { 'package.json': '{"name":"lib"}' }],
  ['django', { 'manage.py': '', 'requirements.txt': 'Django==5.0' }],
  ['fastapi', { 'pyproject.toml': '[project]\ndependencies = ["fastapi>=0.110", "uvicorn"]' }],
  ['flask', { 'requirements.txt': 'flask==3.0\n' }],
  ['python', { 'requirements.txt': 'requests\nflask-cors\nnumpy\n' }],
  ['go', { 'go.mod': 'module x' }],
  ['rust', { 'Cargo.toml': '[package]\nname = "x"' }],
  ['rails', { Gemfile: "source 'https://rubygems.org'\ngem 'rails', '~> 7.1'\n" }],
  ['ruby', { Gemfile: "gem 'rspec'\n" }],
  ['laravel', { 'composer.json': '{"require":{"laravel/framework":"^11"}}' }],
  ['php', { 'composer.json': '{"require":{}}' }],
  ['spring-boot', { 'pom.xml': '<project><parent><artifactId>spring-boot-starter-parent</artifactId></parent></project>' }],
  ['java', { 'build.gradle': 'plugins { id "java" }' }],
  ['phoenix', { 'mix.exs': 'defp deps do [{:phoenix, "~> 1.7"}] end' }],
  ['elixir', { 'mix.exs': 'defp deps do [] end' }],
  ['deno', { 'deno.json': '{}' }],
  [null, { 'README.md': '# nothing to see' }],
  [null, { 'package.json': '[1, 2]', 'notes.txt': '' }],
];

suite('detectStack()', () => {
  for (const [stack, files] of cases) {
    test(`${stack ?? 'null'} for ${Object.keys(files).join(', ')}`, async (t) => {
      const root = makeTree(t, files);
      assert.equal(await detectStack(createContext(root, await walk(root))), stack);
    });
  }
});
