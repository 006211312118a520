// Presets and shared configs shipped by packages: read from node_modules (bounded, inside the project,
// stamped for rescans), else built-in knowledge, else Jest's defaults, each with a note.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite, test } from 'node:test';
import { discoverJs } from '../../../src/discover/js/index.ts';
import { exportTarget } from '../../../src/discover/js/packages/resolve.ts';
import { createContext } from '../../../src/scan/context.ts';
import { scan } from '../../../src/scan/index.ts';
import { walk } from '../../../src/scan/walk/walk.ts';
import { discoverFileList as discover } from '../../helpers/discover.ts';
import { makeTree } from '../../helpers/index.ts';

const JEST = JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29.7.0' } });
const pj = (v: unknown): string => JSON.stringify(v);

suite('Jest presets from node_modules', () => {
  test('a scoped preset through its exports map; the config wins and modulePathIgnorePatterns concatenate', async (t) => {
    const root = makeTree(t, {
      'package.json': JEST,
      'jest.config.js': "module.exports = { preset: '@acme/jest', testMatch: ['**/*.check.js'], modulePathIgnorePatterns: ['/b/'] };",
      'node_modules/@acme/jest/package.json': pj({ name: '@acme/jest', exports: { './jest-preset': { require: './dist/preset.cjs' }, '.': './index.js' } }),
      'node_modules/@acme/jest/dist/preset.cjs': "module.exports = { roots: ['<rootDir>/a', '<rootDir>/b', '<rootDir>/c'], testMatch: ['**/*.spec.js'], modulePathIgnorePatterns: ['/c/'] };",
      'a/x.check.js': '', 'a/y.spec.js': '', 'b/z.check.js': '', 'c/w.check.js': '', 'd/v.check.js': '',
    });
    const { files, notes, runs } = await discover(root);
    assert.deepEqual(files, ['a/x.check.js']);
    assert.deepEqual(notes, ['jest.config.js: preset @acme/jest read from node_modules/@acme/jest/dist/preset.cjs']);
    assert.deepEqual(runs[0]!.notes, notes);
  });

  test('a pnpm link into node_modules/.pnpm is followed, and the preset\'s own dependency found beside it', async (t) => {
    const store = 'node_modules/.pnpm/acme-preset@1.0.0/node_modules';
    const root = makeTree(t, {
      'package.json': JEST,
      'jest.config.js': "module.exports = { preset: 'acme-preset' };",
      [`${store}/acme-preset/package.json`]: pj({ name: 'acme-preset' }),
      [`${store}/acme-preset/jest-preset.js`]: "const { match } = require('acme-globs');\nmodule.exports = { testMatch: match };",
      [`${store}/acme-globs/package.json`]: pj({ name: 'acme-globs', main: 'lib' }),
      [`${store}/acme-globs/lib/index.js`]: "exports.match = ['**/*.pnpm.js'];",
      'src/a.pnpm.js': '', 'src/b.test.js': '',
    });
    symlinkSync('.pnpm/acme-preset@1.0.0/node_modules/acme-preset', join(root, 'node_modules/acme-preset'));
    const { files, notes } = await discover(root);
    assert.deepEqual(files, ['src/a.pnpm.js']);
    assert.deepEqual(notes, [`${store}/acme-preset/jest-preset.js: read acme-globs from ${store}/acme-globs/lib/index.js`,
      `jest.config.js: preset acme-preset read from ${store}/acme-preset/jest-preset.js`]);
  });

  test('a link leading outside the project is refused with a note; Jest defaults apply', async (t) => {
    const outside = mkdtempSync(join(tmpdir(), 'projdex-outside-'));
    t.after(() => rmSync(outside, { recursive: true, force: true }));
    writeFileSync(join(outside, 'package.json'), pj({ name: 'evil' }));
    writeFileSync(join(outside, 'jest-preset.json'), pj({ testMatch: ['**/*.evil.js'] }));
    const root = makeTree(t, { 'package.json': JEST, 'jest.config.js': "module.exports = { preset: 'evil' };", 'a.test.js': '', 'b.evil.js': '' });
    mkdirSync(join(root, 'node_modules'));
    symlinkSync(outside, join(root, 'node_modules/evil'));
    const { files, notes, runs } = await discover(root);
    assert.deepEqual(files, ['a.test.js']);
    assert.equal(notes.length, 2, notes.join('\n'));
    assert.deepEqual(runs[0]!.notes, notes, 'the refusal is in the run that met it too');
    assert.match(notes[0]!, /^node_modules\/evil\/package\.json leads outside the project \(to .*\); not read$/);
    assert.equal(notes[1], 'jest.config.js: preset evil is neither installed nor known to projdex; assumed it sets no testMatch/roots (Jest\'s defaults)');
  });

  test('built-in knowledge when not installed, or installed but computed at run time', async (t) => {
    const root = makeTree(t, {
      'package.json': pj({ workspaces: ['ng', 'ts', 'expo'], scripts: { test: 'npm test --workspaces' } }),
      'ng/package.json': JEST, 'ng/jest.config.js': "module.exports = { preset: 'jest-preset-angular' };",
      'ng/src/a.spec.ts': '', 'ng/src/b.spec.tsx': '',
      'ts/package.json': JEST, 'ts/jest.config.js': "module.exports = { preset: 'ts-jest' };", 'ts/a.test.ts': '',
      // Shaped like ts-jest's own: the preset comes from a getter calling a factory.
      'ts/node_modules/ts-jest/package.json': pj({ name: 'ts-jest', main: 'dist/index.js' }),
      'ts/node_modules/ts-jest/jest-preset.js': "module.exports = require('./presets').defaults",
      'ts/node_modules/ts-jest/presets/index.js': "const all = require('../dist/all')\nmodule.exports = all.default",
      'ts/node_modules/ts-jest/dist/all.js': 'const create = () => ({ transform: {} });\nexports.default = { get defaults() { return create(); } };',
      'expo/package.json': JEST, 'expo/jest.config.js': "module.exports = { preset: 'jest-expo/ios' };",
      'expo/a.test.ios.js': '', 'expo/__tests__/_rsc/b.test.js': '', 'expo/c.test.android.js': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, ['expo/a.test.ios.js', 'ng/src/a.spec.ts', 'ts/a.test.ts']);
    assert.ok(notes.includes('ng/jest.config.js: preset jest-preset-angular is not installed; used built-in knowledge of jest-preset-angular 14 (presets/utils.ts: moduleFileExtensions only)'), notes.join('\n'));
    assert.ok(notes.some((n) => n.startsWith('ts/jest.config.js: preset ts-jest at ts/node_modules/ts-jest/jest-preset.js computes its values at run time; used built-in knowledge of ts-jest 29.4')), notes.join('\n'));
    assert.ok(notes.some((n) => n.startsWith('expo/jest.config.js: preset jest-expo/ios is not installed; used built-in knowledge')), notes.join('\n'));
  });

  test('a relative preset and a <rootDir> preset directory are project files', async (t) => {
    const root = makeTree(t, {
      'package.json': pj({ workspaces: ['p', 'q'], scripts: { test: 'npm test --workspaces' } }),
      'p/package.json': JEST, 'p/jest.config.js': "module.exports = { preset: './config/jest-preset.json' };",
      'p/config/jest-preset.json': pj({ testMatch: ['<rootDir>/spec/**/*.js'] }), 'p/spec/a.js': '', 'p/b.test.js': '',
      'q/package.json': JEST, 'q/jest.config.js': "module.exports = { preset: '<rootDir>/tools' };",
      'q/tools/jest-preset.js': "module.exports = { roots: ['<rootDir>/lib'] };", 'q/lib/c.test.js': '', 'q/d.test.js': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, ['p/spec/a.js', 'q/lib/c.test.js']);
    assert.deepEqual(notes.sort(), ['p/jest.config.js: preset ./config/jest-preset.json read from p/config/jest-preset.json',
      'q/jest.config.js: preset <rootDir>/tools read from q/tools/jest-preset.js']);
  });
});

suite('Jest presets: what Jest itself refuses or cannot reach', () => {
  test('testRegex beside a preset\'s testMatch stops Jest; a preset above the project root is not read', async (t) => {
    const root = makeTree(t, {
      'package.json': pj({ workspaces: ['a', 'b'], scripts: { test: 'npm test --workspaces' } }),
      'a/package.json': JEST, 'a/jest.config.js': "module.exports = { preset: 'acme-preset', testRegex: '\\\\.t\\\\.js$' };",
      'a/node_modules/acme-preset/package.json': pj({ name: 'acme-preset' }),
      'a/node_modules/acme-preset/jest-preset.json': pj({ testMatch: ['**/*.x.js'] }),
      'a/one.t.js': '', 'a/two.x.js': '',
      'b/package.json': JEST, 'b/jest.config.js': "module.exports = { preset: '../../../jest.preset.js' };", 'b/c.test.js': '',
      'jest.preset.js': "module.exports = { testMatch: ['**/*.never.js'] };",
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, ['b/c.test.js']);
    assert.ok(notes.includes('a/jest.config.js: testMatch and testRegex are both set (testMatch from preset acme-preset), which Jest refuses '
      + '("cannot be used together"); no tests listed'), notes.join('\n'));
    assert.ok(notes.includes('b/jest.config.js: preset ../../../jest.preset.js lies outside the project, which projdex does not read; '
      + 'assumed it sets no testMatch/roots (Jest\'s defaults)'), notes.join('\n'));
  });
});

suite('Jest presets that cannot be read statically', () => {
  test('a computed preset name, and an installed unknown preset built by a call', async (t) => {
    const root = makeTree(t, {
      'package.json': pj({ workspaces: ['a', 'b'], scripts: { test: 'npm test --workspaces' } }),
      'a/package.json': JEST, 'a/jest.config.js': "module.exports = { preset: require('./which').name };", 'a/a.test.js': '',
      'b/package.json': JEST, 'b/jest.config.js': "module.exports = { preset: 'made' };", 'b/b.test.js': '', 'b/c.made.js': '',
      'b/node_modules/made/package.json': pj({ name: 'made' }),
      'b/node_modules/made/jest-preset.js': "const { make } = require('preset-maker');\nmodule.exports = make({ testMatch: ['**/*.made.js'] });",
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, ['a/a.test.js', 'b/b.test.js']);
    assert.ok(notes.includes('a/jest.config.js: `preset` is computed; assumed it sets no testMatch/roots (Jest\'s defaults)'), notes.join('\n'));
    assert.ok(notes.includes('b/jest.config.js: preset made at b/node_modules/made/jest-preset.js could not be read statically; assumed it sets '
      + 'no testMatch/roots (Jest\'s defaults)'), notes.join('\n'));
  });
});

suite('hostile node_modules', () => {
  test('a FIFO, a link loop, an oversized preset and a path with `..` read as nothing, and nothing hangs', async (t) => {
    const root = makeTree(t, {
      'package.json': pj({ workspaces: ['a', 'b', 'c'], scripts: { test: 'npm test --workspaces' } }),
      'a/package.json': JEST, 'a/jest.config.js': "module.exports = { preset: 'fifo' };", 'a/a.test.js': '',
      'a/node_modules/fifo/package.json': pj({ name: 'fifo' }),
      'b/package.json': JEST, 'b/jest.config.js': "module.exports = { preset: 'loop' };", 'b/b.test.js': '',
      'c/package.json': JEST, 'c/jest.config.js': "module.exports = { preset: 'big' };", 'c/c.test.js': '',
      'c/node_modules/big/package.json': pj({ name: 'big' }),
      'c/node_modules/big/jest-preset.json': `{"testMatch":["**/*.big.js"],"pad":"${'x'.repeat(1_100_000)}"}`,
      'c/d.big.js': '',
    });
    execFileSync('mkfifo', [join(root, 'a/node_modules/fifo/jest-preset.js')]);
    mkdirSync(join(root, 'b/node_modules'));
    symlinkSync('loop', join(root, 'b/node_modules/loop'));
    const ctx = createContext(root, await walk(root));
    assert.equal(await ctx.readPackage('a/node_modules/../../package.json'), undefined);
    assert.equal(await ctx.readPackage('src/x.js'), undefined, 'only paths under node_modules');
    const tests = await discoverJs(ctx);
    assert.deepEqual(tests.map((x) => x.file).sort(), ['a/a.test.js', 'b/b.test.js', 'c/c.test.js']);
    assert.ok(ctx.notes.includes('c/node_modules/big/jest-preset.json is larger than 1048576 bytes; not read'), ctx.notes.join('\n'));
    for (const p of ['fifo', 'loop', 'big']) {
      assert.ok(ctx.notes.some((n) => n.includes(`preset ${p} is neither installed nor known`)), ctx.notes.join('\n'));
    }
  });
});

suite('shared configs imported from packages', () => {
  test('a spread of a required config package; a plugin import is never read', async (t) => {
    const root = makeTree(t, {
      'package.json': JEST,
      'jest.config.js': "const base = require('@org/jest-config');\nconst tsconfigPaths = require('jest-plugin-paths');\n"
        + "module.exports = { ...base, testPathIgnorePatterns: ['/old/'] };",
      'node_modules/@org/jest-config/package.json': pj({ name: '@org/jest-config', main: './jest.config.js' }),
      'node_modules/@org/jest-config/jest.config.js': "module.exports = { testMatch: ['**/*.unit.js'] };",
      'node_modules/jest-plugin-paths/package.json': pj({ name: 'jest-plugin-paths' }),
      'a.unit.js': '', 'old/b.unit.js': '', 'c.test.js': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, ['a.unit.js']);
    assert.deepEqual(notes, ['jest.config.js: read @org/jest-config from node_modules/@org/jest-config/jest.config.js']);
  });

  test('Nx: a relative preset file spreading @nx/jest/preset (built in), not installed', async (t) => {
    const root = makeTree(t, {
      'package.json': pj({ scripts: { test: 'jest --config libs/ui/jest.config.ts' }, devDependencies: { jest: '^29.7.0' } }),
      'jest.preset.js': "const nxPreset = require('@nx/jest/preset').default;\n\nmodule.exports = { ...nxPreset, collectCoverage: true };",
      'libs/ui/jest.config.ts': "export default {\n  displayName: 'ui',\n  preset: '../../jest.preset.js',\n  coverageDirectory: '../../coverage/libs/ui',\n};",
      'libs/ui/src/a.spec.ts': '', 'libs/ui/src/b.spec.tsx': '', 'libs/ui/src/c.test.js': '', 'other/d.spec.ts': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, ['libs/ui/src/a.spec.ts', 'libs/ui/src/c.test.js']);
    assert.deepEqual(notes, ['libs/ui/jest.config.ts: preset ../../jest.preset.js read from jest.preset.js']);
  });

  test('a workspace config package not installed is read where installing would link it', async (t) => {
    const root = makeTree(t, {
      'package.json': pj({ private: true, workspaces: ['packages/*'], scripts: { test: 'npm test -w @repo/app' } }),
      'packages/vitest-config/package.json': pj({ name: '@repo/vitest-config', exports: { './base': './base.js' } }),
      'packages/vitest-config/base.js': "export default { test: { include: ['src/**/*.unit.ts'] } };",
      'packages/app/package.json': pj({ name: '@repo/app', scripts: { test: 'vitest run' }, devDependencies: { vitest: '^3.2.0' } }),
      'packages/app/vitest.config.ts': "import { mergeConfig } from 'vitest/config';\nimport base from '@repo/vitest-config/base';\n"
        + "export default mergeConfig(base, { test: { exclude: ['src/old/**'] } });",
      'packages/app/src/a.unit.ts': '', 'packages/app/src/b.test.ts': '', 'packages/app/src/old/c.unit.ts': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, ['packages/app/src/a.unit.ts']);
    assert.ok(notes.includes('packages/app/vitest.config.ts: @repo/vitest-config/base is not installed; read the workspace package\'s packages/vitest-config/base.js'), notes.join('\n'));
  });

  test('a workspace config package neither installed nor built: its sources, through `export *`; none: a note', async (t) => {
    const root = makeTree(t, {
      'package.json': pj({ private: true, workspaces: ['packages/*'] }),
      'packages/vitest/package.json': pj({ name: '@repo/vitest', type: 'module', exports: { '.': './dist/index.mjs' } }),
      'packages/vitest/src/index.ts': "export * from './configs'",
      'packages/vitest/src/configs/index.ts': "export { base } from './base'\nexport * as extra from './base'",
      'packages/vitest/src/configs/base.ts': "import type { ViteUserConfig } from 'vitest/config'\n"
        + "export const base: ViteUserConfig = { test: { include: ['**/*.it.ts'] } }\nexport default { test: {} }",
      'packages/core/package.json': pj({ name: 'core', scripts: { test: 'vitest' }, devDependencies: { vitest: '^3.2.4' } }),
      'packages/core/vitest.config.ts': "import { base } from '@repo/vitest'\nimport { defineConfig } from 'vitest/config'\n"
        + 'export default defineConfig({ ...base })',
      'packages/core/src/a.it.ts': '', 'packages/core/src/b.test.ts': '',
      'packages/gone/package.json': pj({ name: '@repo/web-config', exports: './dist/index.js' }),
      'packages/web/package.json': pj({ name: 'web', scripts: { test: 'vitest' }, devDependencies: { vitest: '^3.2.4' } }),
      'packages/web/vitest.config.ts': "import shared from '@repo/web-config'\nexport default shared",
      'packages/web/c.test.ts': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, ['packages/core/src/a.it.ts', 'packages/web/c.test.ts']);
    assert.ok(notes.includes('packages/core/vitest.config.ts: @repo/vitest is not installed nor built; read the workspace package\'s '
      + 'source packages/vitest/src/index.ts, which its build compiles'), notes.join('\n'));
    assert.ok(notes.includes('packages/web/vitest.config.ts: @repo/web-config is the workspace package packages/gone, not installed, and what it '
      + 'exports is not there (not built?); what it provides is unknown'), notes.join('\n'));
  });

  test('a Vitest project extends a config file under node_modules by its path (as vitest 3.2 lists it)', async (t) => {
    const root = makeTree(t, {
      'package.json': pj({ type: 'module', scripts: { test: 'vitest run' }, devDependencies: { vitest: '^3.2.0' } }),
      'vitest.config.mjs': "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { projects: [\n"
        + "  { extends: './node_modules/@acme/vitest-preset/vitest.config.mjs', test: { name: 'unit' } },\n] } });",
      'node_modules/@acme/vitest-preset/package.json': pj({ name: '@acme/vitest-preset', type: 'module' }),
      'node_modules/@acme/vitest-preset/vitest.config.mjs': "export default { test: { include: ['src/**/*.unit.js'] } };",
      'src/a.unit.js': '', 'src/b.test.js': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, ['src/a.unit.js']);
    assert.deepEqual(notes, ['vitest.config.mjs: a project extends ./node_modules/@acme/vitest-preset/vitest.config.mjs, read from '
      + 'node_modules/@acme/vitest-preset/vitest.config.mjs']);
  });

  test('the per-scan budget of package files: past it, a note and the value stays unknown', async (t) => {
    const root = makeTree(t, {
      'package.json': JEST,
      'jest.config.js': "module.exports = { preset: 'acme-preset' };",
      'node_modules/acme-preset/package.json': pj({ name: 'acme-preset' }),
      'node_modules/acme-preset/jest-preset.json': pj({ testMatch: ['**/*.x.js'] }),
      'a.x.js': '', 'b.test.js': '',
    });
    assert.deepEqual((await discover(root)).files, ['a.x.js']);
    const { files, notes } = await discover(root, 1);
    assert.deepEqual(files, ['b.test.js']);
    assert.ok(notes.includes('more than 1 files read under node_modules; node_modules/acme-preset/jest-preset.json and the rest were not read'), notes.join('\n'));
  });

  test('exports targets: conditions in the map\'s order, patterns, arrays; nothing outside the package', () => {
    assert.equal(exportTarget('./i.js', '.', ['require']), './i.js');
    assert.equal(exportTarget({ import: './m.mjs', require: './c.cjs' }, '.', ['require']), './c.cjs');
    assert.equal(exportTarget({ './presets/*': { default: './p/*.js' } }, './presets/web', []), './p/web.js');
    assert.equal(exportTarget({ '.': [{ node: { require: './n.cjs' } }, './f.js'] }, '.', ['node', 'require']), './n.cjs');
    assert.equal(exportTarget({ '.': '../outside.js' }, '.', []), undefined);
    assert.equal(exportTarget({ '.': './i.js' }, './hidden', []), undefined);
  });
});

suite('rescans see package files', () => {
  test('an edited, added or removed preset makes the rescan equal a full scan', async (t) => {
    const root = makeTree(t, {
      'package.json': JEST, 'jest.config.js': "module.exports = { preset: 'acme-preset' };", 'a.x.js': '', 'b.y.js': '', 'c.test.js': '',
    });
    const preset = join(root, 'node_modules/acme-preset');
    const options = { racyMs: 10 };
    const steps: Array<[string, () => void, string[]]> = [
      ['not installed', () => {}, ['c.test.js']],
      ['installed', () => {
        mkdirSync(preset, { recursive: true });
        writeFileSync(join(preset, 'package.json'), pj({ name: 'acme-preset' }));
        writeFileSync(join(preset, 'jest-preset.json'), pj({ testMatch: ['**/*.x.js'] }));
      }, ['a.x.js']],
      ['edited', () => writeFileSync(join(preset, 'jest-preset.json'), pj({ testMatch: ['**/*.y.js'] })), ['b.y.js']],
      ['removed', () => rmSync(join(root, 'node_modules'), { recursive: true }), ['c.test.js']],
    ];
    let previous: Uint8Array | null = null;
    for (const [what, change, expected] of steps) {
      change();
      await sleep(30); // Past the racy window, so an unchanged rescan is possible.
      const again = await scan(root, { ...options, previous });
      const full = await scan(root, options);
      assert.deepEqual(again.tests.map((x) => x.file), expected, what);
      assert.deepEqual({ tests: again.tests, notes: again.notes }, { tests: full.tests, notes: full.notes }, what);
      if (previous) assert.notEqual(again.mode, 'unchanged', what);
      previous = again.snapshot ?? previous;
      const quiet = await scan(root, { ...options, previous });
      assert.equal(quiet.mode, 'unchanged', `${what}: nothing moved since`);
    }
  });
});
