/** Per-test outcomes folded into per-file results, relative to the project. */
import type { TestOutcome } from './reporters/reporter.ts';
import type { Failure, FileResult, FileStatus } from './types.ts';

/** Failures kept per file. */
const MAX_FAILURES = 20;

/**
 * A file failed if any of its tests failed, passed if any passed, else skipped. Files outside the
 * project are left out (a runner may report a helper it loaded from elsewhere).
 */
export function fileResults(root: string, outcomes: readonly TestOutcome[]): FileResult[] {
  const byFile = new Map<string, { statuses: Set<FileStatus>; ms: number | null; failures: Failure[] }>();
  for (const o of outcomes) {
    if (!o.file.startsWith(root + '/')) continue;
    const rel = o.file.slice(root.length + 1);
    const entry = byFile.get(rel) ?? { statuses: new Set<FileStatus>(), ms: null, failures: [] };
    entry.statuses.add(o.status);
    if (o.ms !== null) entry.ms = (entry.ms ?? 0) + o.ms;
    if (o.status === 'failed' && entry.failures.length < MAX_FAILURES) entry.failures.push({ name: o.name, message: o.message ?? '' });
    byFile.set(rel, entry);
  }
  return [...byFile].map(([file_path, e]) => ({
    file_path,
    status: e.statuses.has('failed') ? 'failed' : e.statuses.has('passed') ? 'passed' : 'skipped',
    duration_ms: e.ms === null ? null : Math.round(e.ms),
    failures: e.failures,
  }));
}
