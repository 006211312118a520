import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { suite, test } from 'node:test';
import { newerNodeCommand } from '../../src/cli/old-node.ts';
import { makeTree } from '../helpers/index.ts';

// The bin's advice on a Node without node:sqlite, from the places a copy of projdex is started from,
// laid out on disk as npm and git leave them.
suite('the old-Node advice names a command that works where projdex was started', () => {
  test('a clone, a tarball and the registry through npx, an install', (t) => {
    const root = makeTree(t, {
      'clone/src/bin.ts': '', 'clone/package-lock.json': '{}', 'clone/dist/bin.js': '',
      'cache/_npx/1a/package.json': JSON.stringify({ _npx: { packages: ['node@24', './projdex-0.1.0.tgz'] } }),
      'cache/_npx/1a/node_modules/projdex/dist/bin.js': '',
      'cache/_npx/2b/package.json': JSON.stringify({ _npx: { packages: ['projdex'] } }),
      'cache/_npx/2b/node_modules/projdex/dist/bin.js': '',
      'app/node_modules/projdex/dist/bin.js': '',
    });
    const advice = (bin: string): string => newerNodeCommand(pathToFileURL(join(root, bin)).href);
    assert.equal(advice('clone/dist/bin.js'), '`npm ci && npm start` in the clone (its scripts run the pinned Node 24)');
    assert.equal(advice('cache/_npx/1a/node_modules/projdex/dist/bin.js'), '`npx -p node@24 -p ./projdex-0.1.0.tgz projdex` (from the folder you ran it in)');
    assert.equal(advice('cache/_npx/2b/node_modules/projdex/dist/bin.js'), '`npx -p node@24 -p projdex projdex`');
    assert.equal(advice('app/node_modules/projdex/dist/bin.js'), '`npx -p node@24 -p projdex projdex`');
  });
});
