import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../src/core/store/store.ts';
import type { FoundTest } from '../src/rules/types.ts';
import { CACHE_DIR } from './tree.ts';

/** The tests a seeded project holds: `count` files spread over packages, like a scan would find. */
export function seedTests(count: number, offset = 0): FoundTest[] {
  return Array.from({ length: count }, (_, i) => ({
    file: `packages/pkg-${String(Math.floor(i / 50)).padStart(4, '0')}/src/core/m${offset + i}.test.ts`,
    framework: i % 3 === 2 ? 'vitest' : 'jest',
    cases: 1 + (i % 4),
  }));
}

/**
 * Writes a store of `projects` projects, each with `testsEach` tests (the first project gets
 * `firstTests` instead, when given), straight through `openStore().saveScan`, much faster than scanning.
 * Paths need not exist: listing and reading never touch the project directories.
 */
export function seedStore(dataDir: string, { projects, testsEach, firstTests = testsEach }: { projects: number; testsEach: number; firstTests?: number }): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const store = openStore(join(dataDir, 'projdex.db'));
  try {
    for (let p = 0; p < projects; p++) {
      const project = store.insertProject({ name: `project-${p}`, path: `/srv/bench/project-${String(p).padStart(4, '0')}` })!;
      const tests = seedTests(p === 0 ? firstTests : testsEach);
      store.saveScan(project.id, { tests, ports: [{ port: 3000 + p, script_name: 'dev', config_source: 'package.json' }], framework: 'vite' });
      store.updateProject(project.id, { description: `Bench project ${p}`, tags: ['bench', p % 2 ? 'odd' : 'even'] });
    }
  } finally {
    store.close();
  }
}

/** A seeded store cached under `.bench/stores/NAME` (re-seeded when its `.done` marker is missing). */
export function ensureStore(name: string, shape: Parameters<typeof seedStore>[1], log: (line: string) => void = () => {}): string {
  const dir = join(CACHE_DIR, 'stores', name);
  const marker = `${dir}.done`;
  if (existsSync(marker) && existsSync(join(dir, 'projdex.db'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  log(`seeding store ${name} ...`);
  const started = performance.now();
  seedStore(dir, shape);
  writeFileSync(marker, `${new Date().toISOString()}\n`);
  log(`  done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return dir;
}
