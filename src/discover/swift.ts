import type { FoundTest, ScanContext } from '../rules/types.ts';
import { withCases } from '../rules/with-cases.ts';
import { countMatches, under, type FileIndex } from './files.ts';
import { dirname, joinPath } from '../rules/paths.ts';

const CASES = /\bfunc\s+test\w*\s*\(|@Test\b/g;

/**
 * SwiftPM: each `.testTarget(name: "X", path: "...")` literal in `Package.swift` compiles every `.swift`
 * file under its path (default `Tests/X`). Cases: XCTest `func test*(` and Swift Testing `@Test`.
 * [doc; not verified against `swift test list`]
 */
export async function discoverSwift(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  const targets: string[] = [];
  for (const manifest of index.byName.get('Package.swift') ?? []) {
    if (/(?:^|\/)\.build\//.test(manifest)) continue;
    const text = (await ctx.read(manifest)) ?? '';
    const dir = dirname(manifest);
    for (const m of text.matchAll(/\.testTarget\s*\(/g)) {
      const args = balanced(text, m.index + m[0].length);
      // Top-level arguments only: `name:` inside `.product(name: ...)` belongs to a dependency.
      let flat = args;
      for (let prev = ''; prev !== flat;) { prev = flat; flat = flat.replace(/\([^()]*\)|\[[^[\]]*\]/g, '<>'); }
      const name = /\bname\s*:\s*"([^"]+)"/.exec(flat)?.[1];
      const path = /\bpath\s*:\s*"([^"]+)"/.exec(flat)?.[1];
      if (name !== undefined || path !== undefined) targets.push(joinPath(dir, path ?? `Tests/${name}`));
    }
  }
  if (targets.length === 0) return [];
  const picked = (index.byExt.get('swift') ?? []).filter((f) => targets.some((t) => under(t, f) !== undefined));
  return withCases(ctx, picked, 'swift', countSwift, { rowPerFile: true });
}

/** Text from `start` up to the parenthesis that closes the one just before it. */
function balanced(text: string, start: number): string {
  let depth = 1;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') { i = text.indexOf('"', i + 1); if (i === -1) break; continue; }
    if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return text.slice(start, i);
  }
  return text.slice(start);
}

// Module-level: a scan process keeps a rowPerFile counter between scans (with-cases.ts), so it must not hold a scan.
const countSwift = (text: string): number => countMatches(text, CASES);
