import assert from 'node:assert/strict';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { composeCommand, composeFiles, findExecutable, listServices } from '../../src/core/processes/compose.ts';
import { makeTree } from '../helpers/index.ts';

// How a compose service becomes a command: which file defines it, which executable runs it. Nothing is
// started here (test/slow/processes-compose.test.ts starts them).

const yaml = (...names: string[]): string => `services:\n${names.map((n) => `  ${n}:\n    image: x\n`).join('')}`;

suite('compose services as scripts', () => {
  test('the root files in Compose\'s order come first, then the scan\'s other yaml sources, sorted and capped', () => {
    assert.deepEqual(composeFiles(['package.json', 'z/compose.yml', 'compose.yaml', 'a/docker-compose.yml', 'a/docker-compose.yml']),
      ['compose.yaml', 'compose.yml', 'docker-compose.yaml', 'docker-compose.yml', 'a/docker-compose.yml', 'z/compose.yml']);
    assert.equal(composeFiles(Array.from({ length: 100 }, (_, k) => `d${k}/compose.yml`)).length, 20);
  });

  test('each service under the first file defining it; bad names, other yaml and big files passed over', async () => {
    const files: Record<string, string | null> = {
      'compose.yaml': yaml('web', 'db'),
      'compose.yml': null,
      'ci.yml': 'services:\n  - postgres\n',
      'deploy/compose.yml': yaml('web', 'worker', '-d', 'bad name'),
    };
    const read = async (file: string): Promise<string | undefined | null> => files[file];
    const order = ['compose.yaml', 'compose.yml', 'ci.yml', 'deploy/compose.yml', 'missing.yml'];
    assert.deepEqual(await listServices(order, read), {
      services: [{ name: 'web', file: 'compose.yaml' }, { name: 'db', file: 'compose.yaml' }, { name: 'worker', file: 'deploy/compose.yml' }],
      skipped: ['compose.yml'],
    });
    // Asked for one service, the reading stops at the file that defines it.
    const asked: string[] = [];
    const found = await listServices(order, async (file) => { asked.push(file); return files[file]; }, 'db');
    assert.deepEqual([asked, found.services.map((s) => s.name)], [['compose.yaml'], ['web', 'db']]);
  });

  test('docker, else docker-compose, from absolute PATH entries only; a file named -x is not an option', async (t) => {
    const root = makeTree(t, { 'both/docker': '', 'both/docker-compose': '', 'legacy/docker-compose': '', 'plain/docker': '' });
    for (const file of ['both/docker', 'both/docker-compose', 'legacy/docker-compose']) chmodSync(join(root, file), 0o755);
    mkdirSync(join(root, 'dir', 'docker'), { recursive: true });
    const web = { name: 'web', file: 'compose.yaml' };
    assert.deepEqual(await composeCommand(web, `${join(root, 'both')}`), {
      program: join(root, 'both', 'docker'), args: ['compose', '-f', 'compose.yaml', 'up', '--timeout', '3', 'web'],
      command: 'docker compose -f compose.yaml up --timeout 3 web',
    });
    // Not executable, a folder, a relative entry: passed over for the next one.
    const path = [join(root, 'plain'), join(root, 'dir'), 'both', join(root, 'legacy')].join(':');
    const legacy = await composeCommand({ name: 'web', file: '-x.yml' }, path);
    assert.deepEqual([legacy.program, legacy.args], [join(root, 'legacy', 'docker-compose'), ['-f', './-x.yml', 'up', '--timeout', '3', 'web']]);
    assert.equal(await findExecutable('docker', ''), undefined);
    await assert.rejects(composeCommand(web, join(root, 'plain')), { status: 422, message: /^Cannot start compose service "web": no docker or docker-compose executable/ });
  });
});
