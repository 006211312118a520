import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { discoverOthers } from '../../src/discover/others.ts';
import { buildFitsHost } from '../../src/discover/go.ts';
import { cfgHolds, stripCommentsAndStrings } from '../../src/discover/rust/modules.ts';
import { createContext } from '../../src/scan/context.ts';
import { walk } from '../../src/scan/walk/walk.ts';
import { fixture, makeTree } from '../helpers/index.ts';

async function discover(root: string): Promise<Array<{ file: string; framework: string; cases?: number }>> {
  const ctx = createContext(root, await walk(root));
  return [...await discoverOthers(ctx)].sort((a, b) => (a.file < b.file ? -1 : 1));
}

suite('discoverOthers() go', () => {
  test('module with testdata, vendor, _/. dirs, build constraints and a nested module', async () => {
    assert.deepEqual(await discover(fixture('go-module')), [
      { file: 'internal/db/db_linux_test.go', framework: 'go', cases: 1 },
      { file: 'internal/db/db_test.go', framework: 'go', cases: 2 },
      { file: 'internal/db/unix_test.go', framework: 'go', cases: 1 },
      { file: 'shop_ext_test.go', framework: 'go', cases: 1 },
      { file: 'shop_test.go', framework: 'go', cases: 2 },
      { file: 'tools/gen_test.go', framework: 'go', cases: 1 },
    ]);
  });

  test('build tags set by CI (a matrix value, a Taskfile target, a Makefile target with an override) list the files that need them', async (t) => {
    const goTest = (head: string): string => `${head}package x\n\nimport "testing"\n\nfunc TestA(t *testing.T) {}\n`;
    const root = makeTree(t, {
      'go.mod': 'module example.com/app\n',
      'app_test.go': goTest(''),
      'db_test.go': goTest('//go:build all || cassandra\n\n'),
      'e2e/flow_test.go': goTest('//go:build e2e\n\n'),
      'api/api_test.go': goTest('//go:build integration\n\n'),
      'store/store_test.go': goTest('//go:build integration\n\n'),
      'watch_test.go': goTest('//go:build watch\n\n'),
      '.github/workflows/ci.yml': [
        'jobs:', '  it:', '    strategy:', '      matrix:', '        tags: [ "cassandra", "unit" ]', '    steps:',
        '      - run: |', '          go test -v -tags "${{ matrix.tags }} debug" -race ${{ env.args }}',
        '      - run: task test:e2e', '      - run: make ci',
      ].join('\n') + '\n',
      'Taskfile.yml': "version: '3'\ntasks:\n  test:e2e:\n    deps: [build]\n    cmds:\n      - gotestsum -f testname -- -tags=e2e ./e2e/...\n  build: go build ./...\n",
      'Makefile': 'ci: lint\n\t$(MAKE) unit FLAGS="-tags integration"\nlint:\n\tgolangci-lint run\nunit:\n\tgo test $(FLAGS) ./api/...\n',
    });
    const ctx = createContext(root, await walk(root));
    const found = await discoverOthers(ctx);
    // store/ is not under the integration run's ./api/..., and no run sets `watch`.
    assert.deepEqual(found.map((f) => f.file).sort(), ['api/api_test.go', 'app_test.go', 'db_test.go', 'e2e/flow_test.go']);
    assert.deepEqual(ctx.notes.filter((n) => n.startsWith('Go')), [
      'Go: build tags `cassandra`, `debug`, `unit` are set by `go test` in .github/workflows/ci.yml; files that need them are listed for the packages that run covers',
      'Go: build tags `e2e` are set by `go test` in Taskfile.yml; files that need them are listed for the packages that run covers',
      'Go: build tags `integration` are set by `go test` in Makefile; files that need them are listed for the packages that run covers',
      "Go module `.`: 2 of 6 `_test.go` files build only for other platforms or with build tags (file name or `//go:build` line; taken as linux/amd64, with the tags the project's runs set): not listed; the build tags they name: `integration` (1 file), `watch` (1 file), which no `go test` line projdex could read sets for them",
    ]);
  });

  test('a `cd dir` line of a CI script moves the tagged run after it into that module', async (t) => {
    const goTest = (head: string): string => `${head}package x\n\nimport "testing"\n\nfunc TestA(t *testing.T) {}\n`;
    const root = makeTree(t, {
      'go.mod': 'module example.com/es\n', 'client_test.go': goTest(''), 'integ_test.go': goTest('//go:build integration\n\n'),
      'api/test/go.mod': 'module example.com/es/api/test\n', 'api/test/api_test.go': goTest('//go:build integration\n\n'),
      '.github/workflows/api.yml': 'jobs:\n  t:\n    steps:\n      - run: |\n          cd api/test\n          go mod tidy\n          gotestsum --format=short-verbose -- -tags=integration ./...\n',
    });
    assert.deepEqual((await discover(root)).map((f) => f.file), ['api/test/api_test.go', 'client_test.go']);
  });

  test('no go.mod, no Go tests', async (t) => {
    assert.deepEqual(await discover(makeTree(t, { 'a_test.go': 'package a\n' })), []);
  });

  test('a module whose tests all need another platform or a tag says so; one with some left out counts them', async (t) => {
    const goTest = (head: string): string => `${head}package x\n\nimport "testing"\n\nfunc TestA(t *testing.T) {}\n`;
    const root = makeTree(t, {
      'go.mod': 'module example.com/app\n',
      'app_test.go': goTest(''),
      'integration/api_test.go': goTest('//go:build integration\n// +build integration\n\n'),
      'winsvc/go.mod': 'module example.com/winsvc\n',
      'winsvc/svc_windows_test.go': goTest(''),
      'winsvc/svc_test.go': goTest('//go:build windows\n\n'),
      'winsvc/testdata/fixture_test.go': goTest(''),
      'tools/go.mod': 'module example.com/tools\n',
      'tools/testdata/only_test.go': goTest(''),
    });
    const ctx = createContext(root, await walk(root));
    const found = await discoverOthers(ctx);
    assert.deepEqual(found.map((f) => f.file), ['app_test.go']);
    assert.deepEqual(ctx.notes.filter((n) => n.startsWith('Go module')), [
      'Go module `.`: 1 of 2 `_test.go` files build only for other platforms or with build tags (file name or `//go:build` line; taken as linux/amd64, no tags): not listed; the build tags they name: `integration` (1 file), which no `go test` line projdex could read sets for them',
      'Go module `winsvc`: none of its 2 `_test.go` files builds for linux/amd64 without build tags (file name or `//go:build` line), so none is listed',
    ]);
  });

  test('//go:build expressions are evaluated for linux/amd64 without extra tags', () => {
    assert.equal(buildFitsHost('//go:build linux && (amd64 || arm64)\n\npackage a\n'), true);
    assert.equal(buildFitsHost('//go:build !linux\n\npackage a\n'), false);
    assert.equal(buildFitsHost('//go:build go1.21 && !integration\n\npackage a\n'), true);
    assert.equal(buildFitsHost('package a\n\n//go:build ignore\n'), true);
  });
});

suite('discoverOthers() cargo', () => {
  test('workspace members, exclude, autotests=false, [[test]] paths and test=false, unit tests under src/', async () => {
    assert.deepEqual(await discover(fixture('rust-workspace')), [
      { file: 'app/src/bin/tool.rs', framework: 'cargo', cases: 1 },
      { file: 'app/src/main.rs', framework: 'cargo', cases: 2 },
      { file: 'app/tests/cli.rs', framework: 'cargo' },
      { file: 'crates/core/src/lib.rs', framework: 'cargo', cases: 2 },
      { file: 'crates/core/src/parse.rs', framework: 'cargo', cases: 1 },
      { file: 'crates/core/tests/api.rs', framework: 'cargo', cases: 2 },
      { file: 'crates/core/tests/suite/main.rs', framework: 'cargo', cases: 1 },
      { file: 'crates/macros/tests/expand/run.rs', framework: 'cargo', cases: 1 },
    ]);
  });

  test('single package: async test attributes counted, nested fixture crate ignored', async (t) => {
    const root = makeTree(t, {
      'Cargo.toml': '[package]\nname = "svc"\nversion = "0.1.0"\n',
      'src/lib.rs': '#[tokio::test]\nasync fn a() {}\n#[tokio::test(flavor = "multi_thread")]\nasync fn b() {}\n#[rstest]\nfn c() {}\n#[test_case(1)]\nfn d(_: u8) {}\n// #[test] in a comment\n',
      'tests/fixtures/demo/Cargo.toml': '[package]\nname = "demo"\n',
      'tests/fixtures/demo/tests/x.rs': '#[test]\nfn x() {}\n',
    });
    assert.deepEqual(await discover(root), [{ file: 'src/lib.rs', framework: 'cargo', cases: 4 }]);
  });
});

suite('discoverOthers() cargo custom targets', () => {
  test('[lib] and [[bin]] paths outside src/ hold unit tests; tests/ under them stay integration-only', async (t) => {
    const root = makeTree(t, {
      'Cargo.toml': '[package]\nname = "x"\n\n[lib]\npath = "lib.rs"\n\n[[bin]]\nname = "cli"\npath = "cli/main.rs"\n',
      'lib.rs': '#[test]\nfn l() {}\n',
      'build.rs': '#[test]\nfn never() {}\n',
      'cli/main.rs': 'fn main() {}\n#[test]\nfn c() {}\n',
      'cli/args.rs': '#[test]\nfn a() {}\n',
      'benches/b.rs': '#[test]\nfn b() {}\n',
    });
    assert.deepEqual((await discover(root)).map((x) => x.file), ['cli/main.rs', 'lib.rs']);
  });
});

// Expected lists checked against `cargo test --no-run` (dep-info of each test binary) on the same trees.
suite('discoverOthers() cargo as cargo sees it', () => {
  test('mod following: x.rs, x/mod.rs, non-mod.rs children, #[path], inline mods, cfg(feature) with defaults, #![cfg]', async () => {
    assert.deepEqual(await discover(fixture('rust-mods')), [
      { file: 'src/generated/tables.rs', framework: 'cargo', cases: 1 },
      { file: 'src/inline/nested.rs', framework: 'cargo', cases: 1 },
      { file: 'src/json/mod.rs', framework: 'cargo', cases: 1 },
      { file: 'src/parse.rs', framework: 'cargo', cases: 1 },
      { file: 'src/parse/lexer.rs', framework: 'cargo', cases: 2 },
      { file: 'tests/api.rs', framework: 'cargo', cases: 1 },
      { file: 'tests/common/mod.rs', framework: 'cargo', cases: 1 },
      { file: 'tests/it/admin/mod.rs', framework: 'cargo', cases: 1 },
      { file: 'tests/it/admin/perms.rs', framework: 'cargo', cases: 1 },
      { file: 'tests/it/main.rs', framework: 'cargo', cases: 0 },
      { file: 'tests/it/users.rs', framework: 'cargo', cases: 1 },
      { file: 'tests/net.rs', framework: 'cargo', cases: 0 },
    ]);
  });

  test('a root package tests alone under a bare `cargo test`; CI `-p api --all-features` adds that member with its features', async () => {
    assert.deepEqual((await discover(fixture('rust-rootpkg'))).map((x) => x.file), [
      'crates/api/src/lib.rs', 'crates/api/src/pg.rs', 'crates/api/tests/e2e.rs', 'src/main.rs', 'tests/health.rs',
    ]);
  });

  test('virtual roots: default-members for a bare run, every member with --workspace from the Makefile', async (t) => {
    const files = {
      'Cargo.toml': '[workspace]\nmembers = ["a", "b"]\ndefault-members = ["a"]\n',
      'a/Cargo.toml': '[package]\nname = "a"\n', 'a/src/lib.rs': '#[test]\nfn a() {}\n',
      'b/Cargo.toml': '[package]\nname = "b"\n', 'b/src/lib.rs': '#[test]\nfn b() {}\n',
    };
    assert.deepEqual((await discover(makeTree(t, files))).map((x) => x.file), ['a/src/lib.rs']);
    const all = makeTree(t, { ...files, 'Makefile': 'test:\n\tcargo test --workspace --locked\n' });
    assert.deepEqual((await discover(all)).map((x) => x.file), ['a/src/lib.rs', 'b/src/lib.rs']);
  });

  test('a bare run names the declared features whose cfg drops test modules; a CI run that sets them follows them', async (t) => {
    const files = {
      'Cargo.toml': '[package]\nname = "idx"\n\n[features]\ndefault = ["std"]\nstd = []\nindex = []\n',
      'src/lib.rs': '#[cfg(feature = "std")]\nmod io;\n#[cfg(feature = "index")]\nmod index;\n#[cfg(windows)]\nmod win;\n',
      'src/io.rs': '#[test]\nfn io() {}\n', 'src/index.rs': '#[test]\nfn idx() {}\n', 'src/win.rs': '#[test]\nfn w() {}\n',
      'tests/cli.rs': '#[test]\nfn cli() {}\n',
    };
    const bare = makeTree(t, files);
    const ctx = createContext(bare, await walk(bare));
    assert.deepEqual([...await discoverOthers(ctx)].map((x) => x.file).sort(), ['src/io.rs', 'tests/cli.rs']);
    assert.deepEqual(ctx.notes, [
      'Cargo package `.`: modules behind the features `index` are off in `cargo test` and not followed; a run with `--features` would add the tests they hold',
    ]);
    const ci = makeTree(t, { ...files, '.github/workflows/ci.yml': 'jobs:\n  t:\n    steps:\n      - run: cargo test --features index\n' });
    const withCi = createContext(ci, await walk(ci));
    assert.deepEqual([...await discoverOthers(withCi)].map((x) => x.file).sort(), ['src/index.rs', 'src/io.rs', 'tests/cli.rs']);
    assert.deepEqual(withCi.notes, []);
  });

  test('cfg predicates as a linux test build sees them', () => {
    const env = { features: new Set(['json']) };
    assert.equal(cfgHolds('#[cfg(all(unix, not(feature = "slow")))]', env), true);
    assert.equal(cfgHolds('#[cfg(any(windows, target_os = "macos"))]', env), false);
    assert.equal(cfgHolds('#[cfg(feature = "json")]', env), true);
    assert.equal(cfgHolds('#[cfg(tokio_unstable)]', env), false);
    assert.equal(cfgHolds('#[allow(dead_code)]', env), true);
  });

  test('comments, strings and char literals are blanked in one pass; hostile input stays bounded', () => {
    const out = stripCommentsAndStrings('mod a; // mod b;\n/* mod c; */ let s = "mod d; {"; let c = \'{\'; fn f<\'a>() {}\n#[path = "x/y.rs"] mod e;\n');
    assert.equal(out, 'mod a; \n             let s = ""; let c = \' \'; fn f<\'a>() {}\n#[path = "x/y.rs"] mod e;\n');
    assert.equal(stripCommentsAndStrings('/*'.repeat(100_000)).length, 200_000);
    assert.equal(cfgHolds('#[cfg(all("x", ), not(' + '('.repeat(500) + ')]', { features: new Set() }), false);
  });
});
