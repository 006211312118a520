import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { discoverJs } from '../discover/js/index.ts';
import { discoverOthers } from '../discover/others/index.ts';
import { findPorts } from '../ports/index.ts';
import { readerNotes } from '../readers/budget.ts';
import { createContext } from './context.ts';
import type { ScanProbe } from './probe.ts';
import { detectStack } from './stack.ts';
import type { FoundPort, FoundTest, RunInfo } from './types.ts';
import { walk, type WalkOptions } from './walk.ts';

export interface ScanResult {
  /** One entry per test file, sorted by `file`. */
  readonly tests: FoundTest[];
  /** Sorted by port, then script name. */
  readonly ports: FoundPort[];
  /** Main stack detected (e.g. `next`, `vite`, `django`, `go`), or null. */
  readonly framework: string | null;
  /** Remarks on what the scan could not read exactly, e.g. a config key that is computed. */
  readonly notes: string[];
  /** Per package, what discovery followed: command, runner, config and assumptions. */
  readonly runs: RunInfo[];
  /** Why the walk stopped early, or null when it saw the whole tree. */
  readonly truncated: string | null;
  /** Directories (relative) that could not be read, or that a walk cap left unread: what was stored under them is kept. */
  readonly unreadable: string[];
}

export interface ScanOptions extends Omit<WalkOptions, 'fs' | 'onProgress'> {
  /** Told how far the scan got (files walked, each file a rule reads): see `ScanProbe`. */
  readonly probe?: ScanProbe;
}

/**
 * Scans one project directory: the test files its own runners would run, the ports its files name
 * and its main stack. Reads files, never executes them.
 *
 * @example
 * const { tests } = await scan('/home/me/app');
 * tests[0]; // { file: 'src/a.test.ts', framework: 'vitest', cases: 3 }
 */
export async function scan(root: string, options: ScanOptions = {}): Promise<ScanResult> {
  // Rules match some patterns against absolute paths (Jest's testMatch), so the root must be absolute and real.
  root = await realpath(resolve(root));
  const { probe, ...walkOptions } = options;
  const tree = await walk(root, probe ? { ...walkOptions, onProgress: probe.walked } : walkOptions);
  probe?.walked(tree.files.length);
  if (tree.rootError) {
    // Nothing was seen, which must not read as "no tests": the scan fails and the store keeps its rows.
    throw Object.assign(new Error(`project directory cannot be read (${tree.rootError})`), { code: 'ROOT_UNREADABLE', cause: tree.rootError });
  }
  const ctx = createContext(root, tree, probe ? { onRead: probe.reading } : {});
  if (tree.errors > 0) ctx.note(`${tree.errors} director${tree.errors === 1 ? 'y' : 'ies'} could not be read (${tree.unreadable.slice(0, 3).join(', ')}${tree.errors > 3 ? ', ...' : ''}); what was found there before was kept`);
  // Readers over a budget and patterns refused as unsafe (readers/budget.ts) become notes of this scan.
  const [js, others, ports, framework] = await readerNotes.run(ctx.note, () =>
    Promise.all([discoverJs(ctx), discoverOthers(ctx), findPorts(ctx), detectStack(ctx)]));

  // One row per file: when two families claim a file, the first (JS, then the rest) wins.
  const byFile = new Map<string, FoundTest>();
  for (const test of [...js, ...others]) if (!byFile.has(test.file)) byFile.set(test.file, test);
  const tests = [...byFile.values()].sort((a, b) => compare(a.file, b.file));

  const seen = new Set<string>();
  const uniquePorts = ports.filter((p) => {
    const key = `${p.port}\0${p.script_name}\0${p.config_source}`;
    return seen.has(key) ? false : (seen.add(key), true);
  }).sort((a, b) => a.port - b.port || compare(a.script_name ?? '', b.script_name ?? '') || compare(a.config_source, b.config_source));

  return { tests, ports: uniquePorts, framework, notes: ctx.notes, runs: ctx.runs, truncated: tree.truncated, unreadable: [...tree.unreadable, ...tree.unvisited] };
}

/** Code-unit order, the same as SQLite's default BINARY collation, so API order matches store order. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One test file as the library's `scan()` reports it: the field names of the API's Test records. */
export interface ReportedTest {
  /** POSIX path relative to the scanned root. */
  readonly file_path: string;
  readonly framework: FoundTest['framework'];
  /** Static estimate of the test cases the file declares, or null when not counted. */
  readonly cases: number | null;
}

/** `scan()`'s answer as the library exports it: `tests` carry `file_path` as in `GET /api/projects/:id/tests`. */
export type ScanReport = Omit<ScanResult, 'tests'> & { readonly tests: ReportedTest[] };

/**
 * The library's `scan` (exported by the package as `scan`): the same scan, with the API's field names,
 * so code moving between the library and the HTTP API reads one shape. Ports already use them.
 *
 * @example
 * const { tests } = await scanReport('/home/me/app');
 * tests[0]; // { file_path: 'src/a.test.ts', framework: 'vitest', cases: 3 }
 */
export async function scanReport(root: string, options: ScanOptions = {}): Promise<ScanReport> {
  const { tests, ...rest } = await scan(root, options);
  return { ...rest, tests: tests.map((t) => ({ file_path: t.file, framework: t.framework, cases: t.cases ?? null })) };
}
