import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { followTasks, taskRunnerLines } from '../../src/discover/task-files.ts';
import { createContext } from '../../src/scan/context.ts';
import { walk } from '../../src/scan/walk/walk.ts';
import { makeTree } from '../helpers/index.ts';

const contextOf = async (root: string) => createContext(root, await walk(root));

suite('task files: the lines a make, just or task call runs', () => {
  test('make: prerequisites first, each target once, the first target by default', async (t) => {
    const root = makeTree(t, {
      'Makefile': 'all: test\n\ndeps:\n\tgo mod download\n\nunit: deps\n\tgo test ./pkg/...\n\n'
        + 'test: deps unit\n\tgo test -tags integration ./...\n',
    });
    const ctx = await contextOf(root);
    const lines = async (line: string) =>
      (await followTasks(ctx, [{ line, dir: '', source: 'ci.yml' }])).map((l) => l.line);
    assert.deepEqual(await lines('make test'),
      ['make test', 'go mod download', 'go test ./pkg/...', 'go test -tags integration ./...']);
    assert.deepEqual(await lines('make'),
      ['make', 'go mod download', 'go test ./pkg/...', 'go test -tags integration ./...']);
  });

  test('just: dependencies first, literal variables put in, the default recipe, a missing recipe said', async (t) => {
    const root = makeTree(t, {
      'justfile': 'pkg := "./internal/..."\n\ndefault: test\n\nbuild:\n  go build ./...\n\n'
        + 'test: build (lint "x")\n  go test {{ pkg }}\n\nlint name:\n  golangci-lint run\n',
    });
    const ctx = await contextOf(root);
    const read = (file: string) => ctx.read(file);
    const want = ['go build ./...', 'golangci-lint run', 'go test ./internal/...'];
    assert.deepEqual(await taskRunnerLines(read, ['just', 'test'], ''), { file: 'justfile', dir: '', lines: want });
    assert.deepEqual(await taskRunnerLines(read, ['just'], ''), { file: 'justfile', dir: '', lines: want });
    assert.deepEqual(await taskRunnerLines(read, ['just', 'nope'], ''), { missing: 'recipe' });
    assert.deepEqual(await taskRunnerLines(read, ['task', 'test'], ''), { missing: 'file' });
  });

  test('task: deps and task calls in cmds, aliases, the first Taskfile name that exists', async (t) => {
    const root = makeTree(t, {
      'Taskfile.yml': 'version: "3"\nvars:\n  PKG: ./cmd/...\ntasks:\n  gen:\n    cmds: [go generate ./...]\n'
        + '  test:\n    aliases: [t]\n    deps: [gen]\n    cmds:\n      - go test {{.PKG}} {{.CLI_ARGS}}\n      - task: gen\n',
    });
    const ctx = await contextOf(root);
    const found = await taskRunnerLines((file) => ctx.read(file), ['task', 't'], '');
    assert.deepEqual(found, { file: 'Taskfile.yml', dir: '', lines: ['go generate ./...', 'go test ./cmd/... '] });
  });
});
