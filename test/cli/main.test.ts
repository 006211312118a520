import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { main, type CliIo } from '../../src/cli.ts';
import { connect } from '../../src/cli/client.ts';
import { followProgress } from '../../src/cli/progress.ts';
import { startServer } from '../../src/server/server.ts';
import { makeTree } from '../helpers/index.ts';

/** An io whose stderr claims to be a terminal, collecting what is written. */
function terminal(): CliIo & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: { write: (text: string) => { io.out += text; } },
    stderr: { isTTY: true, write: (text: string) => { io.err += text; } },
    once: () => io,
  };
  return io;
}

suite('main() in process', () => {
  test('scan --all on a terminal draws a progress line, reports a failed project and exits 1', async (t) => {
    const root = makeTree(t, { 'one/package.json': '{}', 'two/go.mod': 'module two\n' });
    const data = ['--data-dir', join(root, 'data')];
    assert.equal(await main(['add', '--all', root, ...data], {}, terminal()), 0);
    rmSync(join(root, 'two'), { recursive: true });
    const io = terminal();
    assert.equal(await main(['scan', '--all', ...data], {}, io), 1);
    // Counts appear when the scan ran long enough to report (every 250 ms); the frame is always there.
    const counts = (label: string): string => `(?:\\r\\x1b\\[K${label} [\\d,]+ files?, [\\d,]+ tests?)*`;
    assert.match(io.err, new RegExp(`^\\r\\x1b\\[Kscanning 1/2 one \\.\\.\\.${counts('scanning 1/2 one \\.\\.\\.')}`
      + `\\r\\x1b\\[Kscanning 2/2 two \\.\\.\\.${counts('scanning 2/2 two \\.\\.\\.')}\\r\\x1b\\[K$`));
    assert.match(io.out, /^#1 one: 0 test files, 0 ports \(node\)\n  note: package\.json has no test script; no test files listed for it\n#2 two: FAILED: Project directory no longer exists: \S+two\n2 projects scanned, 1 failed\n$/);
    const json = terminal();
    assert.equal(await main(['scan', '--all', '--json', ...data], {}, json), 1);
    assert.equal(json.err, '', 'no progress line with --json');
    const entries = JSON.parse(json.out) as Array<Record<string, unknown>>;
    assert.deepEqual(Object.keys(entries[1]!).sort(), Object.keys(entries[0]!).sort(), 'a failed entry has the same keys');
    assert.deepEqual([entries[0]!.error, entries[1]!.testsFound], [null, 0]);
  });

  test('the progress line follows the server\'s scan.progress events for the project being scanned', async (t) => {
    const root = makeTree(t);
    const dataDir = join(root, 'data');
    const running = await startServer({ port: 0, dataDir, logger: { error() {} } });
    t.after(() => running.close());
    const client = await connect(dataDir, undefined);
    t.after(() => client.close());
    assert.equal(client.remote, true, 'the CLI found the running server through server.json');
    const seen: unknown[] = [];
    const stop = await followProgress(client, (p) => seen.push(p));
    running.events.emit('scan.started', { id: 7 });
    running.events.emit('scan.progress', { id: 7, files: 1200, tests: 30 });
    running.events.emit('scan.progress', { id: 7, files: 'many', tests: 1 });
    running.events.emit('scan.progress', { id: 8, files: 5, tests: 0 });
    const started = Date.now();
    while (seen.length < 2 && Date.now() - started < 10_000) await new Promise((done) => setTimeout(done, 20));
    stop();
    assert.deepEqual(seen, [{ id: 7, files: 1200, tests: 30 }, { id: 8, files: 5, tests: 0 }]);
  });

  test('tests of a never-scanned project says how to scan it; ports with none found says so', async (t) => {
    const root = makeTree(t, { 'app/package.json': '{}' });
    const data = ['--data-dir', join(root, 'data')];
    await main(['add', join(root, 'app'), ...data], {}, terminal());
    const io = terminal();
    assert.equal(await main(['tests', '1', ...data], {}, io), 0);
    assert.equal(io.out, '#1 app was never scanned; run `projdex scan 1`\n');
    const ports = terminal();
    assert.equal(await main(['ports', ...data], {}, ports), 0);
    assert.equal(ports.out, 'no ports found; scan projects with `projdex scan --all`\n');
    await main(['scan', '1', ...data], {}, terminal());
    const after = terminal();
    await main(['ports', ...data], {}, after);
    assert.equal(after.out, 'no ports found in the 1 scanned project\n', 'after a scan, no advice to scan');
    const conflicts = terminal();
    await main(['ports', '--conflicts', ...data], {}, conflicts);
    assert.equal(conflicts.out, 'no port is claimed by more than one project\n');
  });
});
