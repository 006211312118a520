/**
 * Ground truth for the non-JS discovery rules: each entry runs the real runner's own listing on a copy
 * of a project and reduces it to sorted project-relative file paths, or returns null when the runner
 * is not installed. Checking aid only; nothing in src/ imports this.
 *
 * Usage: node scripts/compare/others.ts <project-dir>...  (prints runner lists next to projdex's)
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { RunnerFailed } from './failed.ts';

const run = promisify(execFile);

interface Runner { framework: string; list(dir: string): Promise<string[] | null> }

interface CopyOptions {
  readonly env?: Record<string, string>;
  /** Adjusts the copy before the run, e.g. a stub autoloader the fixture does not ship. */
  readonly prepare?: (copy: string) => void;
  /** Directory inside the copy to run in. */
  readonly cwd?: string;
  /** Pass stderr to `reduce` too (Django's runner reports there). */
  readonly stderr?: boolean;
  /**
   * Exit codes that still mean "this is the list" (pytest's 5: none collected); any other is a failed run.
   * `'any'` for runners that run the tests to list them (a failing test exits non-zero).
   */
  readonly okCodes?: readonly number[] | 'any';
}

/**
 * Runs `cmd` in a throwaway copy of `dir` (runners write caches and build output there), passing its
 * stdout and the copy's path to `reduce` before the copy is removed. Null when `cmd` is not installed.
 */
async function inCopy<T>(dir: string, cmd: string, args: string[], reduce: (out: string, copy: string) => T, { env = {}, prepare, cwd = '', stderr = false, okCodes = [0] }: CopyOptions = {}): Promise<T | null> {
  const copy = realpathSync(mkdtempSync(join(tmpdir(), 'projdex-cmp-')));
  try {
    cpSync(dir, copy, { recursive: true });
    prepare?.(copy);
    const result = await run(cmd, args, { cwd: join(copy, cwd), env: { ...process.env, ...env }, maxBuffer: 64 << 20 })
      .catch((e: { code?: unknown; stdout?: string; stderr?: string }) => {
        if (e.code === 'ENOENT') return null;
        if (okCodes !== 'any' && !okCodes.includes(Number(e.code))) throw new RunnerFailed(`${cmd} exited ${String(e.code)}`, e.stderr || e.stdout);
        return { stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
      });
    return result && reduce(stderr ? `${result.stdout}\n${result.stderr}` : result.stdout, copy);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** The project's declared Python test commands, as projdex reads them. */
async function declared(dir: string): Promise<Array<import('../../src/discover/python/words.ts').PyCommand>> {
  const { declaredPyCommands } = await import('../../src/discover/python/commands.ts');
  const { createContext } = await import('../../src/scan/context.ts');
  const { walk } = await import('../../src/scan/walk/walk.ts');
  return declaredPyCommands(createContext(dir, await walk(dir)));
}

/** A pytest id's file (relative to pytest's rootdir) as a project path: tried under cwd, else by unique suffix. */
function resolveId(copy: string, cwd: string, id: string): string {
  if (existsSync(join(cwd, id))) return relative(copy, join(cwd, id));
  const hits: string[] = [];
  const find = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) find(p); else if (p.endsWith('/' + id)) hits.push(p);
    }
  };
  find(copy);
  return hits.length === 1 ? relative(copy, hits[0]!) : id;
}

function uniqSorted(list: Iterable<string>): string[] {
  return [...new Set(list)].sort();
}

export const runners: Runner[] = [
  {
    framework: 'pytest',
    async list(dir) {
      // The project's own pytest command (its words after `pytest`, in its directory) when it declares
      // one, else bare `pytest`. `-q` prints `file::test` ids relative to the rootdir; an extra `-q` from
      // addopts prints `file: count` instead. Ids are mapped back to project paths by suffix.
      const cmds = (await declared(dir)).filter((c) => c.runner === 'pytest');
      const runs = cmds.length > 0 ? cmds.filter((c) => c.source === cmds[0]!.source) : [{ args: [] as readonly string[], cwd: '' }];
      const out: string[] = [];
      for (const cmd of runs) {
        const args = ['--collect-only', '-q', '-p', 'no:cacheprovider', ...cmd.args.filter((a) => !a.includes('{') && !a.startsWith('--cov') && !/^(?:-v+|-q+|--verbose|--quiet)$/.test(a))];
        const got = await inCopy(dir, 'pytest', args, (stdout, copy) => stdout.split('\n')
          .map((l) => /^([^\s:]+\.\w+)(?:::|: \d+$)/.exec(l.trim())?.[1]).filter((f): f is string => !!f)
          .map((f) => resolveId(copy, join(copy, cmd.cwd ?? ''), f)), { env: { PYTHONDONTWRITEBYTECODE: '1' }, cwd: cmd.cwd ?? '', okCodes: [0, 5] });
        if (got === null) return null;
        out.push(...got);
      }
      return uniqSorted(out);
    },
  },
  {
    framework: 'unittest',
    async list(dir) {
      const cmd = (await declared(dir)).find((c) => c.runner === 'unittest');
      if (!cmd) return [];
      if (cmd.django) {
        // Django's runner has no list mode: run the (fixture's trivial) tests verbosely and map each
        // `test_x (pkg.module.Class.test_x)` line to its module file.
        const python = ['python3', '/usr/bin/python3'].find((p) => { try { execFileSync(p, ['-c', 'import django'], { stdio: 'ignore' }); return true; } catch { return false; } });
        if (!python) return null;
        const args = ['manage.py', 'test', ...cmd.args.filter((a) => !a.includes('{') && !/^--parallel/.test(a)), '-v', '2'];
        return inCopy(dir, python, args, (stdout, copy) => uniqSorted([...stdout.matchAll(/^\w+ \(([\w.]+)\.\w+\.\w+\) \.\.\./gm)]
          .map((m) => m[1]!.replace(/\./g, '/') + '.py').map((f) => relative(copy, join(copy, cmd.cwd ?? '', f)))), { cwd: cmd.cwd ?? '', stderr: true, okCodes: 'any' });
      }
      // unittest has no list mode: load the suite the declared `discover` args name and print each test's module file.
      const script = [
        'import sys, unittest, inspect, os',
        'argv = sys.argv[1:]',
        'loader = unittest.TestLoader()',
        'if argv[:1] == ["discover"] or not [x for x in argv if not x.startswith("-")]:',
        '    import argparse; p = argparse.ArgumentParser(); p.add_argument("-s", "--start-directory", default="."); p.add_argument("-p", "--pattern", default="test*.py"); p.add_argument("-t", "--top-level-directory"); p.add_argument("rest", nargs="*")',
        '    a = p.parse_args(argv[1:] if argv else [])',
        '    suite = loader.discover(a.rest[0] if a.rest else a.start_directory, a.rest[1] if len(a.rest) > 1 else a.pattern, a.top_level_directory)',
        'else:',
        '    suite = loader.loadTestsFromNames([x for x in argv if not x.startswith("-")])',
        'def walk(s):',
        '    for t in s:',
        '        if isinstance(t, unittest.TestSuite): yield from walk(t)',
        '        else: yield t',
        'for t in walk(suite):',
        '    f = inspect.getsourcefile(type(t)) if type(t).__module__ != "unittest.loader" else None',
        '    if f: print(os.path.relpath(f))',
      ].join('\n');
      return inCopy(dir, 'python3', ['-B', '-c', script, ...cmd.args.filter((a) => !a.includes('{'))], (out, copy) => uniqSorted(out.split('\n').filter(Boolean).map((f) => relative(copy, join(copy, cmd.cwd ?? '', f))).filter((f) => !f.startsWith('..'))), { cwd: cmd.cwd ?? '' });
    },
  },
  {
    framework: 'go',
    async list(dir) {
      // Every module (go.mod) is listed on its own, as `go test ./...` would be run in each.
      const mods: string[] = [];
      const find = (d: string): void => {
        for (const e of readdirSync(d, { withFileTypes: true })) {
          // Directories `./...` skips can hold fixture modules the go tool never visits.
          if (e.isDirectory() && !/^[._]|^(?:testdata|vendor)$/.test(e.name)) find(join(d, e.name));
          else if (e.name === 'go.mod') mods.push(d);
        }
      };
      find(dir);
      const out: string[] = [];
      for (const mod of mods) {
        const r = await run('go', ['list', '-e', '-f', '{{.Dir}}|{{join .TestGoFiles ","}}|{{join .XTestGoFiles ","}}', './...'], { cwd: mod, env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local' } })
          .catch((e: { code?: unknown; stdout?: string; stderr?: string }) => {
            if (e.code === 'ENOENT') return null;
            // `-e` reports per-package errors in the output; a non-zero exit is the module itself failing
            // (a dependency it cannot fetch with GOPROXY=off, a broken go.mod).
            throw new RunnerFailed(`go list exited ${String(e.code)}`, e.stderr || e.stdout);
          });
        if (!r) return null;
        for (const line of r.stdout.split('\n')) {
          const [pkgDir, a, b] = line.split('|');
          if (!pkgDir) continue;
          for (const f of [...(a ?? '').split(','), ...(b ?? '').split(',')]) if (f) out.push(relative(dir, join(pkgDir, f)));
        }
      }
      return uniqSorted(out);
    },
  },
  {
    framework: 'cargo',
    async list(dir) {
      // `cargo test --no-run` builds exactly the test binaries `cargo test` runs; each binary's dep-info
      // (.d) file names its source files. Integration targets count whole; lib/bin unit-test binaries
      // count the sources that declare a test attribute (the same reduction the rule makes).
      // The project's own runs (CI/Makefile `cargo test` lines, with their -p/--workspace/--features), else
      // a bare `cargo test` in every outermost manifest directory, as projdex reads them.
      const { cargoRuns } = await import('../../src/discover/rust/runs.ts');
      const { createContext } = await import('../../src/scan/context.ts');
      const { walk } = await import('../../src/scan/walk/walk.ts');
      const ctx = createContext(dir, await walk(dir));
      let runs = await cargoRuns(ctx);
      if (runs.length === 0) {
        const tops = ctx.files.filter((f) => f.endsWith('Cargo.toml') && !/(?:^|\/)target\//.test(f)).map((f) => f.slice(0, -'Cargo.toml'.length).replace(/\/$/, ''));
        runs = tops.filter((d) => !tops.some((o) => o !== d && (o === '' || d.startsWith(o + '/')))).map((d) => ({ dir: d, workspace: false, packages: [], features: [], allFeatures: false, text: null }));
      }
      const out: string[] = [];
      const attr = /^\s*#\[\s*(?:(?:[\w]+::)*test\s*(?:\]|\()|rstest\s*(?:\]|\()|test_case\s*\()/m;
      for (const run of runs) {
        const args = ['test', '--no-run', '--offline', '--message-format=json', ...(run.workspace ? ['--workspace'] : []),
          ...run.packages.flatMap((p) => ['-p', p]), ...(run.allFeatures ? ['--all-features'] : []), ...(run.features.length ? ['--features', run.features.join(',')] : [])];
        const got = await inCopy(dir, 'cargo', args, (stdout, copy) => {
          const files: string[] = [];
          for (const line of stdout.split('\n')) {
            if (!line.startsWith('{')) continue;
            const msg = JSON.parse(line) as { reason?: string; profile?: { test?: boolean }; target?: { kind: string[]; src_path: string }; filenames?: string[] };
            if (msg.reason !== 'compiler-artifact' || !msg.profile?.test || !msg.target || !msg.filenames?.[0]) continue;
            // An integration target's root counts whole; every other compiled source when it declares a test.
            if (msg.target.kind.includes('test')) files.push(relative(copy, msg.target.src_path));
            const dep = readFileSync(msg.filenames[0].replace(/$/, '.d'), 'utf8').split('\n')[0] ?? '';
            for (const src of dep.slice(dep.indexOf(': ') + 2).split(/(?<!\\) /)) {
              const abs = isAbsolute(src) ? src : join(copy, src);
              if (src.endsWith('.rs') && attr.test(readFileSync(abs, 'utf8'))) files.push(relative(copy, abs));
            }
          }
          return files;
        }, { env: { CARGO_TARGET_DIR: join(tmpdir(), 'projdex-cargo-target') }, cwd: run.dir });
        if (got === null) return null;
        out.push(...got);
      }
      return uniqSorted(out);
    },
  },
  {
    framework: 'rspec',
    async list(dir) {
      return inCopy(dir, 'rspec', ['--dry-run', '--format', 'json'], (out) => {
        const start = out.indexOf('{"version"');
        if (start === -1) return [];
        const json = JSON.parse(out.slice(start)) as { examples: Array<{ file_path: string }> };
        return uniqSorted(json.examples.map((e) => e.file_path.replace(/^\.\//, '')));
      });
    },
  },
  {
    framework: 'minitest',
    async list(dir) {
      // Rake::TestTask has no list mode: record each task while the Rakefile loads, then print its file_list.
      // (Rails' `bin/rails test` cannot run on fixtures without a Rails install, so only Rakefile projects are checked.)
      const script = [
        'require "rake"; require "rake/testtask"',
        'class Rake::TestTask; alias_method :projdex_define, :define; def define; ($projdex ||= []) << self; projdex_define; end; end',
        'Rake.application.init("rake", []); Rake.application.load_rakefile',
        // `rake test` runs the :test task; the default task may name others. With no :test task, all count.
        'names = ["test"] + (Rake::Task.task_defined?("default") ? Rake::Task["default"].prerequisites : [])',
        'tasks = ($projdex || []); run = tasks.select { |t| names.include?(t.name.to_s) }; run = tasks if run.empty?',
        'puts(run.flat_map { |t| t.file_list.to_a })',
      ].join('\n');
      let rakefile = '';
      try { rakefile = readFileSync(join(dir, 'Rakefile'), 'utf8'); } catch { /* no Rakefile */ }
      if (!/TestTask/.test(rakefile)) return null;
      return inCopy(dir, 'ruby', ['-e', script], (out) => uniqSorted(out.split('\n').filter((l) => l.endsWith('.rb'))));
    },
  },
  {
    framework: 'exunit',
    async list(dir) {
      // `mix test --trace` runs the suites and heads each module with `Module [path]`, the path relative
      // to the app being tested; in an umbrella, `==> app` lines say which app (assumed at apps/<app>).
      if (!existsSync(join(dir, 'mix.exs'))) return null;
      return inCopy(dir, 'mix', ['test', '--trace'], (out, copy) => {
        let prefix = '';
        const files: string[] = [];
        for (const line of out.split('\n')) {
          const app = /^==> (\S+)$/.exec(line)?.[1];
          if (app) { prefix = existsSync(join(copy, 'apps', app)) ? `apps/${app}/` : ''; continue; }
          const file = /^\S.* \[(\S+\.exs)\]$/.exec(line)?.[1];
          if (file) files.push(prefix + file);
        }
        return uniqSorted(files);
      }, { env: { MIX_ENV: 'test' }, prepare: (copy) => rmSync(join(copy, 'deps'), { recursive: true, force: true }), okCodes: 'any' });
    },
  },
  {
    framework: 'phpunit',
    async list(dir) {
      // A project pinned to another PHPUnit major is not comparable: PHPUnit 10 added `#[Test]` attributes, say.
      const wanted = /"phpunit\/phpunit"\s*:\s*"[\^~>=v\s]*(\d+)/.exec(existsSync(join(dir, 'composer.json')) ? readFileSync(join(dir, 'composer.json'), 'utf8') : '')?.[1];
      const installed = await run('phpunit', ['--version'], { cwd: dir }).then((r) => /PHPUnit (\d+)/.exec(String(r.stdout))?.[1], () => undefined);
      if (installed === undefined || (wanted !== undefined && wanted !== installed)) return null;
      // PHPUnit 9 (Debian) has no file listing: run the suites and read `file=` (and .phpt names) from the JUnit log.
      return inCopy(dir, 'phpunit', ['--log-junit', 'projdex-junit.xml'], (_out, copy) => {
        let log = '';
        try { log = readFileSync(join(copy, 'projdex-junit.xml'), 'utf8'); } catch { return []; }
        const files = [...log.matchAll(/<testcase [^>]*?(?:file="([^"]+)"|name="([^"]+\.phpt)")/g)].map((m) => relative(copy, m[1] ?? m[2]!));
        return uniqSorted(files);
      }, {
        okCodes: 'any', // it runs the suites: a failing test exits non-zero
        prepare: (copy) => {
          // Fixtures ship no Composer install; an empty autoloader satisfies `bootstrap="vendor/autoload.php"`.
          mkdirSync(join(copy, 'vendor'), { recursive: true });
          if (!existsSync(join(copy, 'vendor/autoload.php'))) writeFileSync(join(copy, 'vendor/autoload.php'), '<?php\n');
        },
      });
    },
  },
];

if (import.meta.main) {
  const { scan } = await import('../../src/scan/index.ts');
  for (const dir of process.argv.slice(2)) {
    if (!statSync(dir).isDirectory()) continue;
    const ours = (await scan(dir)).tests.filter((t) => runners.some((r) => r.framework === t.framework));
    const used = new Set(ours.map((t) => t.framework));
    for (const runner of runners) {
      // pytest and unittest both see any Python tree: compare only the one projdex chose.
      if ((runner.framework === 'pytest' || runner.framework === 'unittest') && !used.has(runner.framework)) continue;
      const theirs = await runner.list(dir);
      const mine = ours.filter((t) => t.framework === runner.framework).map((t) => t.file).sort();
      if (theirs === null || (theirs.length === 0 && mine.length === 0)) continue;
      const missing = theirs.filter((f) => !mine.includes(f));
      const extra = mine.filter((f) => !theirs.includes(f));
      console.log(`${dir} ${runner.framework}: runner ${theirs.length}, projdex ${mine.length}` +
        (missing.length ? `\n  missing: ${missing.join(' ')}` : '') + (extra.length ? `\n  extra: ${extra.join(' ')}` : ''));
    }
  }
}
