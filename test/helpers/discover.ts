// JS discovery run alone on a directory (a fixture or a temp tree), without the scan engine's parts,
// snapshot or cache around it: what the tests of src/discover/js/ assert on.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { discoverJs } from '../../src/discover/js/index.ts';
import type { FoundTest, RunInfo } from '../../src/rules/types.ts';
import { createContext } from '../../src/scan/context.ts';
import { walk } from '../../src/scan/walk/walk.ts';
import { fixture } from './index.ts';

async function run(root: string, maxPackageFiles?: number): Promise<{
  tests: readonly FoundTest[]; notes: string[]; runs: RunInfo[];
}> {
  const ctx = createContext(root, await walk(root), maxPackageFiles ? { maxPackageFiles } : {});
  return { tests: await discoverJs(ctx), notes: ctx.notes, runs: ctx.runs };
}

/** Runs JS discovery alone on a directory: `{ file: framework }`, estimated case counts, notes, runs. */
export async function discover(root: string): Promise<{
  files: Record<string, string>; cases: Record<string, number | undefined>; notes: string[]; runs: RunInfo[];
}> {
  const { tests, notes, runs } = await run(root);
  return {
    files: Object.fromEntries(tests.map((t) => [t.file, t.framework])),
    cases: Object.fromEntries(tests.map((t) => [t.file, t.cases])),
    notes,
    runs,
  };
}

/**
 * The same, as the sorted list of files found, with an optional budget of files read under node_modules
 * (the tests of presets and shared configs read it that way).
 */
export async function discoverFileList(root: string, maxPackageFiles?: number): Promise<{
  files: string[]; notes: string[]; runs: RunInfo[];
}> {
  const { tests, notes, runs } = await run(root, maxPackageFiles);
  return { files: tests.map((t) => t.file).sort(), notes, runs };
}

/** The expected `{ file: framework }` of files all found by one runner. */
export const all = (framework: string, files: string[]): Record<string, string> =>
  Object.fromEntries(files.map((f) => [f, framework]));

/** A package.json (or any JSON file) of a temp tree. */
export const json = (v: unknown): string => JSON.stringify(v);

/** A suite checking each fixture's exact `{ file: framework }` (test/fixtures/<name>). */
export function fixtureSuite(expected: Readonly<Record<string, Record<string, string>>>): void {
  suite('discoverJs on fixtures', () => {
    for (const [name, files] of Object.entries(expected)) {
      test(`${name}: exact file list and frameworks`, async () => {
        assert.deepEqual((await discover(fixture(name))).files, files);
      });
    }
  });
}
