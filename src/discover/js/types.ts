import type { ScanContext, TestFramework } from '../../rules/types.ts';
import type { NxProject } from './nx/nx.ts';

/** Runners the script reader recognises; `cra` is Jest under react-scripts' own config. */
export type JsRunner = 'jest' | 'cra' | 'vitest' | 'mocha' | 'node-test' | 'playwright' | 'cypress' | 'ava' | 'jasmine'
  | 'bun' | 'deno' | 'web-test-runner' | 'tap' | 'uvu' | 'borp' | 'tape' | 'kcd' | 'angular' | 'karma' | 'karma-start' | 'bnt';

/** One runner call reached from a package's test script (or assumed, with `args` empty, as a fallback). */
export interface Invocation {
  readonly runner: JsRunner;
  /** Arguments after the runner's command word(s), quotes removed. */
  readonly args: readonly string[];
  /** Per argument: was it quoted (so `sh` did not glob-expand it). */
  readonly quoted: readonly boolean[];
  /** The directory the call runs in, relative to its package, when not the package's own (`cd e2e && jest`). */
  readonly cwd?: string;
}

/** A package: the project root or a workspace member, with the files below it. */
export interface Pkg {
  /** Directory relative to the project root, `''` for the root. */
  readonly dir: string;
  readonly json: Record<string, unknown>;
  /** Files below `dir`, relative to `dir`. */
  readonly files: readonly string[];
  /** Directories below `dir` (not `dir` itself), relative to `dir`. */
  readonly dirs: ReadonlySet<string>;
  /** `has(rel)` for a file relative to `dir`. */
  has(rel: string): boolean;
  /** Reads a file relative to `dir`. */
  read(rel: string): Promise<string | undefined>;
  /** In an Nx workspace: the project's name and explicit targets (nx.ts). */
  readonly nx?: NxProject;
  /** Drops the package-relative copies `files` and `dirs` made (rebuilt if used again). */
  readonly release?: () => void;
}

/** A runner rule: the files (relative to `pkg.dir`) one invocation would run. */
export interface RunnerRule {
  readonly framework: TestFramework;
  discover(ctx: ScanContext, pkg: Pkg, inv: Invocation): Promise<string[]>;
}

/** Dependencies and devDependencies (and peer/optional) of a package.json, name to range. */
export function depsOf(json: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const key of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
    const deps = json[key];
    if (deps && typeof deps === 'object') Object.assign(out, deps);
  }
  return out;
}

/** Major version a dependency range pins (`^29.7.0` → 29), or null when unknown (`latest`, `workspace:*`). */
export function majorOf(range: string | undefined): number | null {
  const m = range === undefined ? null : /(\d+)/.exec(range);
  return m ? Number(m[1]) : null;
}
