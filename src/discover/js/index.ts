import type { Discover, FoundTest, ScanContext, TestFramework } from '../../scan/types.ts';
import { withCases } from '../../scan/with-cases.ts';
import { ava } from './ava.ts';
import { bun } from './bun.ts';
import { countCases } from './cases.ts';
import { cypress } from './cypress.ts';
import { fallbackRunners } from './fallback.ts';
import { jasmine } from './jasmine.ts';
import { cra, jest } from './jest.ts';
import { mocha } from './mocha.ts';
import { nodeTest } from './node-test.ts';
import { findPackages, releasePkg } from './packages.ts';
import { playwright } from './playwright.ts';
import { planTestScript } from './script.ts';
import type { JsRunner, RunnerRule } from './types.ts';
import { vitest } from './vitest.ts';
import { wtr } from './wtr.ts';
import { joinPath } from '../../scan/paths.ts';

const RULES: Partial<Record<JsRunner, RunnerRule>> = {
  jest, cra, vitest, mocha, 'node-test': nodeTest, playwright, cypress, ava, jasmine, bun, 'web-test-runner': wtr,
};
const READ_CONCURRENCY = 16;

/**
 * Test files of the JavaScript ecosystem's runners. For each package (root and workspace members,
 * deepest first) the test script decides which runners run; without one (or with the npm placeholder)
 * the runners the package configures or depends on are assumed, and a note says so. The first runner
 * to claim a file keeps it, so a file is never listed twice. `cases` is a static estimate (see cases.ts).
 *
 * @example
 * const tests = await discoverJs(ctx);
 * tests[0]; // { file: 'src/a.test.ts', framework: 'vitest', cases: 3 }
 */
export const discoverJs: Discover = async (ctx) => {
  const claimed = new Map<string, TestFramework>();
  for (const pkg of await findPackages(ctx)) {
    const label = pkg.dir === '' ? 'package.json' : `${pkg.dir}/package.json`;
    const prefix = pkg.dir === '' ? '' : pkg.dir + '/';
    const plan = planTestScript(pkg.json.scripts as Record<string, unknown> | undefined);
    let invocations = plan.invocations;
    if (invocations.length === 0 && !plan.delegates) {
      invocations = fallbackRunners(pkg);
      if (invocations.length > 0) {
        const why = plan.missing ? 'has no test script' : 'has a test script that runs no known runner';
        ctx.note(`${label} ${why}; assumed the defaults of ${[...new Set(invocations.map((i) => i.runner))].join(', ')}`);
      }
    }
    for (const inv of invocations) {
      const rule = RULES[inv.runner];
      if (!rule) { ctx.note(`${label}: ${inv.runner} test discovery is not supported yet`); continue; }
      for (const file of await rule.discover(ctx, pkg, inv)) {
        // Perf: rules return normalized package-relative paths, so a prefix does what joinPath would.
        const full = isNormal(file) ? prefix + file : joinPath(pkg.dir, file);
        if (!claimed.has(full)) claimed.set(full, rule.framework);
      }
    }
    releasePkg(pkg);
  }
  return claimedTests(ctx, claimed);
};

/** Whether joinPath would leave a relative path as it is (no empty, `.` or `..` segment). */
function isNormal(path: string): boolean {
  return path !== '' && !/(^|\/)\.{0,2}(\/|$)/.test(path);
}

/** Reads each claimed file (bounded concurrency) to estimate its cases; sorted by path. */
async function claimedTests(ctx: ScanContext, claimed: Map<string, TestFramework>): Promise<FoundTest[]> {
  const found = await withCases(ctx, claimed.keys(), (file) => claimed.get(file)!, countCases, { concurrency: READ_CONCURRENCY });
  return found.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}
