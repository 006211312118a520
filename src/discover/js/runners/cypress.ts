import { compileGlobs } from '../../../rules/glob.ts';
import { flagValues, hasFlag } from '../args.ts';
import { firstExisting, readConfigFile, stringList, where } from '../config/config.ts';
import { getKey } from '../../../readers/js/literal.ts';
import type { RunnerRule } from '../types.ts';

const CONFIG_NAMES = ['js', 'ts', 'mjs', 'cjs', 'mts', 'cts'].map((e) => `cypress.config.${e}`);
const E2E = 'cypress/e2e/**/*.cy.{js,jsx,ts,tsx}';
const COMPONENT = '**/*.cy.{js,jsx,ts,tsx}';

/**
 * Cypress ≥10: `e2e.specPattern` minus `excludeSpecPattern` (globby: no dot files, node_modules
 * ignored); `cypress run --component` uses `component.specPattern` minus the e2e pattern. As a
 * fallback (no test script), component specs count too when the config has a `component` key.
 * Legacy `cypress.json` (<10): every file under `integrationFolder` (default `cypress/integration`).
 */
export const cypress: RunnerRule = {
  framework: 'cypress',
  async discover(ctx, pkg, inv) {
    const file = flagValues(inv, '--config-file', '-C')[0] ?? firstExisting(pkg, '', CONFIG_NAMES);
    if (!file && pkg.has('cypress.json')) {
      const legacy = await ctx.readJson(where(pkg, 'cypress.json')) as { integrationFolder?: string } | undefined;
      const folder = (legacy?.integrationFolder ?? 'cypress/integration').replace(/^\.\//, '') + '/';
      return pkg.files.filter((f) => f.startsWith(folder) && !f.endsWith('.hot-update.js') && !f.slice(folder.length).split('/').some((s) => s.startsWith('.')));
    }
    const config = file ? await readConfigFile(ctx, pkg, file) : undefined;
    const source = file ? where(pkg, file) : 'cypress defaults';
    const e2e = stringList(ctx, config, 'e2e.specPattern', source) ?? [E2E];
    const wantComponent = hasFlag(inv, '--component') || (inv.args.length === 0 && getKey(config, 'component').found && !hasFlag(inv, '--e2e'));
    const wantE2e = !hasFlag(inv, '--component');
    const out = new Set<string>();
    if (wantE2e) {
      const ex = stringList(ctx, config, 'e2e.excludeSpecPattern', source) ?? ['*.hot-update.js'];
      for (const f of select(pkg.files, e2e, ex)) out.add(f);
    }
    if (wantComponent) {
      const ex = stringList(ctx, config, 'component.excludeSpecPattern', source) ?? ['**/__snapshots__/*', '**/__image_snapshots__/*'];
      for (const f of select(pkg.files, stringList(ctx, config, 'component.specPattern', source) ?? [COMPONENT], [...ex, ...e2e])) out.add(f);
    }
    return [...out];
  },
};

function select(files: readonly string[], include: string[], exclude: string[]): string[] {
  const m = compileGlobs([...include, ...exclude.map((e) => '!' + e), '!**/node_modules/**'].map((p) => p.replace(/^(!?)\.\//, '$1')));
  return files.filter((f) => m.match(f));
}
