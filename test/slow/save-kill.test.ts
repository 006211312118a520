// A process killed (SIGKILL) in the middle of a big save: after reopening, the project holds either the
// previous scan or the new one, whole (tests with their ids, ports, snapshot), never a mix of the two.
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { openStore, type ScanRecord, type Store } from '../../src/core/store/store.ts';
import { makeTree, seededRandom } from '../helpers/index.ts';

const STORE = join(import.meta.dirname, '..', '..', 'src', 'core', 'store', 'store.ts');
const ROUNDS = 8;

/** Files `from`..`to` with `cases` each: the old scan is 0..20k, the new one 10k..30k with other counts. */
const TESTS = `(from, to, cases) => Array.from({ length: to - from },
  (_, i) => ({ file: 'src/t' + String(from + i).padStart(6, '0') + '.test.js', framework: 'jest', cases }))`;

/** The child: opens the store, prints `saving`, saves the new scan, prints `saved <ms>`. */
const CHILD = `import { openStore } from ${JSON.stringify(STORE)};
const tests = ${TESTS};
const store = openStore(process.argv[2]);
const record = { tests: tests(10_000, 30_000, 2), ports: [{ port: 4000, script_name: null, config_source: '.env' }],
  framework: null, snapshot: new Uint8Array([2]) };
process.stdout.write('saving\\n');
const started = performance.now();
if (!await store.saveScanSliced(1, record)) throw new Error('not saved');
process.stdout.write('saved ' + Math.round(performance.now() - started) + '\\n');
store.close();
`;

/** What a reopened store holds of project 1's last scan (created_at and times aside). */
function scanOf(store: Store) {
  return {
    tests: store.listTests(1).map((x) => [x.id, x.file_path, x.framework, x.cases]),
    ports: store.listPorts(1, 'all').map((x) => [x.port, x.config_source]),
    snapshot: [...store.getSnapshot(1)?.data ?? []],
  };
}

/** Runs the child on `db`; with `killAfter` (ms after it printed `saving`) it is SIGKILLed then. */
async function runChild(script: string, db: string, killAfter?: number): Promise<{ finished: boolean; ms?: number }> {
  const child = spawn(process.execPath, [script, db], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => { err += d; });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; if (out.includes('saving\n')) resolve(); });
      void exited.then(() => reject(new Error(`the child exited before saving: ${err}`)));
    });
    if (killAfter !== undefined) {
      await new Promise((r) => setTimeout(r, killAfter));
      child.kill('SIGKILL');
    }
    const code = await exited;
    if (killAfter === undefined) assert.equal(code, 0, err);
    const saved = /saved (\d+)/.exec(out);
    return saved ? { finished: true, ms: Number(saved[1]) } : { finished: false };
  } finally {
    clearTimeout(deadline);
  }
}

suite('SIGKILL during a big save', () => {
  test(`after each of ${ROUNDS} kills at seeded moments the project holds the old scan or the new one, whole`, { timeout: 300_000 }, async (t) => {
    const dir = makeTree(t);
    const script = join(dir, 'child.ts');
    writeFileSync(script, CHILD);
    // The database before the save: one project with the old scan (a big save itself, so ids are real).
    const template = join(dir, 'template.db');
    const store = openStore(template);
    store.insertProject({ name: 'p', path: '/p' });
    const tests = new Function(`return ${TESTS}`)() as (from: number, to: number, cases: number) => ScanRecord['tests'];
    const old: ScanRecord = { tests: tests(0, 20_000, 1), ports: [{ port: 3000, script_name: 'dev', config_source: 'package.json' }], framework: null, snapshot: new Uint8Array([1]) };
    assert.equal(await store.saveScanSliced(1, old), true);
    const before = scanOf(store);
    store.close();

    // One save run to its end gives the new scan (ids included: the same inserts in the same order) and
    // how long a save takes here, so the kills fall across it on a fast or a slow machine alike.
    const whole = join(dir, 'whole.db');
    copyFileSync(template, whole);
    const { ms = 0 } = await runChild(script, whole);
    const reopened = openStore(whole);
    const after = scanOf(reopened);
    reopened.close();
    assert.notDeepEqual(after, before);
    assert.equal(after.tests.length, 20_000);

    const seed = Number(process.env.PROJDEX_KILL_SEED ?? 31031);
    const random = seededRandom(seed);
    let cut = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const db = join(dir, `round${round}.db`);
      copyFileSync(template, db);
      const killAfter = Math.floor(random() * ms * 1.1);
      const { finished } = await runChild(script, db, killAfter);
      if (!finished) cut++;
      const label = `round ${round} (seed ${seed}, kill after ${killAfter} of ${ms} ms)`;
      const check = openStore(db);
      try {
        assert.equal(check.integrityCheck(), 'ok', label);
        const found = scanOf(check);
        assert.ok(JSON.stringify(found) === JSON.stringify(before) || JSON.stringify(found) === JSON.stringify(after),
          `${label}: ${found.tests.length} tests, ports ${JSON.stringify(found.ports)}, snapshot ${JSON.stringify(found.snapshot)}`);
      } finally {
        check.close();
      }
    }
    assert.ok(cut >= ROUNDS / 2, `at least half the kills fell inside a save (${cut} of ${ROUNDS})`);
  });
});
