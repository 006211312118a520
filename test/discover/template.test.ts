// The rule template (src/discover/_template.ts) is code, not prose: it must run against the kit as it is.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { example } from '../../src/discover/_template.ts';
import { findPackages } from '../../src/discover/js/packages/packages.ts';
import { createContext } from '../../src/scan/context.ts';
import { walk } from '../../src/scan/walk/walk.ts';
import { makeTree } from '../helpers/index.ts';

async function run(t: Parameters<typeof makeTree>[0], files: Record<string, string>, args: string[] = []) {
  const root = makeTree(t, { 'package.json': '{"name":"x"}', ...files });
  const ctx = createContext(root, await walk(root));
  const [pkg] = await findPackages(ctx);
  const found = await example.discover(ctx, pkg!, { runner: 'node-test', args, quoted: args.map(() => false) });
  return { found: found.sort(), notes: ctx.notes };
}

suite('the runner rule template', () => {
  test('defaults, a literal config, command-line files, and a note for a config it cannot read', async (t) => {
    const tree = { 'test/a.example.js': '', 'spec/b.example.js': '', 'other.js': '' };
    assert.deepEqual((await run(t, tree)).found, ['test/a.example.js']);
    const literal = await run(t, { ...tree, 'example.config.json': '{"files":["spec/*.example.js"]}' });
    assert.deepEqual(literal.found, ['spec/b.example.js']);
    assert.deepEqual((await run(t, tree, ['other.js'])).found, ['other.js']);
    const computed = await run(t, { ...tree, 'example.config.js': 'module.exports = { files: globby() };\n' });
    assert.deepEqual(computed.found, ['test/a.example.js']);
    assert.ok(computed.notes.some((n) => n.includes("used the runner's defaults")), computed.notes.join('\n'));
  });
});
