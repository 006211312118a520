import { guarded } from '../rules/guarded.ts';
import { partLog } from '../rules/part-log.ts';
import type { Discover, FoundTest } from '../rules/types.ts';
import { indexFiles } from './files.ts';
import { discoverCargo } from './rust/cargo.ts';
import { discoverDotnet } from './dotnet.ts';
import { discoverExunit } from './elixir.ts';
import { discoverGo, noteGoLeftOut } from './go.ts';
import { discoverJunit } from './jvm.ts';
import { discoverMinitest } from './ruby/minitest.ts';
import { discoverPhpunit } from './php.ts';
import { discoverPython } from './python/python.ts';
import { discoverRspec } from './ruby/rspec.ts';
import { discoverSwift } from './swift.ts';

/**
 * Test files of runners outside the JavaScript ecosystem: pytest/unittest, Go, Cargo, RSpec, Minitest,
 * PHPUnit, JUnit (Maven/Gradle), ExUnit, .NET and SwiftPM. Each rule reads only its own config files;
 * the file list is indexed once and shared. One row per file: the first rule to claim a file keeps it.
 * `cases` is a static estimate (declared test functions/attributes; parametrization not expanded).
 *
 * @example
 * await discoverOthers(ctx); // [{ file: 'tests/test_api.py', framework: 'pytest', cases: 4 }, ...]
 */
export const discoverOthers: Discover = async (ctx) => {
  const index = indexFiles(ctx);
  const rules = [
    discoverPython, discoverGo, discoverCargo, discoverRspec, discoverMinitest,
    discoverPhpunit, discoverJunit, discoverExunit, discoverDotnet, discoverSwift,
  ];
  // Each rule is a unit (answered from its record over a kept walk while its inputs are as they were, its
  // counts made again) with its own log, replayed in rule order: the answer's order does not depend on
  // which rule's reads came back first, nor on which rules were answered from their records.
  const logs = rules.map(() => partLog());
  const results = await Promise.all(rules.map((rule, i) => logs[i]!.run(ctx, (view) =>
    view.unit(`others\0${i}\0${rule.name}`, (unit) => guarded(unit, rule.name, () => rule(unit, index)), { recount }))));
  for (const log of logs) log.replay(ctx);
  await noteGoLeftOut(ctx, index, results[rules.indexOf(discoverGo)]!);
  const byFile = new Map<string, FoundTest>();
  for (const list of results) for (const t of list) if (!byFile.has(t.file)) byFile.set(t.file, t);
  return [...byFile.values()];
};

/**
 * A rule's rows with the ones counted again put in place: a counted file that keeps no row now goes, one
 * that keeps a row now and had none comes last (a rule's order does not matter: the first rule to claim a
 * file keeps it, and the scan sorts by file).
 */
function recount(rows: FoundTest[], counted: ReadonlyMap<string, FoundTest>, given: ReadonlySet<string>): FoundTest[] {
  const out: FoundTest[] = [];
  const placed = new Set<string>();
  for (const row of rows) {
    const now = given.has(row.file) ? counted.get(row.file) : row;
    if (now && !placed.has(now.file)) { out.push(now); placed.add(now.file); }
  }
  for (const row of counted.values()) if (!placed.has(row.file)) out.push(row);
  return out;
}
