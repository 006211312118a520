// Writes what `scan()` finds in each directory as JSON (without the snapshot bytes), one file per directory:
// `node scripts/scan-to-json.ts OUT_DIR DIR...`. Two checkouts' outputs over the same repositories, compared
// with `diff -r`, show whether a change moved any result (a restructure must move none).
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { scan } from '../src/scan/index.ts';

const [out, ...dirs] = process.argv.slice(2);
if (!out || dirs.length === 0) {
  process.stderr.write('usage: node scripts/scan-to-json.ts OUT_DIR DIR...\n');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
for (const dir of dirs) {
  const { snapshot: _snapshot, delta: _delta, ...result } = await scan(dir);
  writeFileSync(join(out, `${basename(dir)}.json`), `${JSON.stringify(result, null, 1)}\n`);
}
