import type { Discover, FoundTest } from '../../scan/types.ts';
import { indexFiles } from './files.ts';
import { discoverCargo } from './cargo.ts';
import { discoverDotnet } from './dotnet.ts';
import { discoverExunit } from './exunit.ts';
import { discoverGo } from './go.ts';
import { discoverJunit } from './junit.ts';
import { discoverMinitest } from './minitest.ts';
import { discoverPhpunit } from './phpunit.ts';
import { discoverPython } from './python.ts';
import { discoverRspec } from './rspec.ts';
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
  const results = await Promise.all(rules.map((rule) => rule(ctx, index)));
  const byFile = new Map<string, FoundTest>();
  for (const list of results) for (const t of list) if (!byFile.has(t.file)) byFile.set(t.file, t);
  return [...byFile.values()];
};
