/**
 * better-node-test (`bnt`), a launcher for `node --test` (https://github.com/ai/better-node-test, bin.js):
 * the positional arguments are the files handed to `node --test`; without any, every file whose basename
 * matches `/\.(test|spec)\.(js|ts)$/`, walking from the working directory and skipping only `.git` and
 * `node_modules` directories (other dot directories are walked).
 */

import { nodeTest } from './node-test.ts';
import type { RunnerRule } from '../types.ts';

// bnt's own options that take the next word as their value.
const WITH_VALUE = new Set(['-t', '--coverage', '--coverage-include', '--coverage-exclude']);
const DEFAULT = /\.(test|spec)\.(js|ts)$/;

export const bnt: RunnerRule = {
  framework: 'node-test',
  async discover(ctx, pkg, inv) {
    const args: string[] = [];
    const quoted: boolean[] = [];
    for (let i = 0; i < inv.args.length; i++) {
      const a = inv.args[i]!;
      if (WITH_VALUE.has(a)) { i++; continue; }
      if (a === '--debug' || a === '-h' || a === '--help') continue;
      args.push(a);
      quoted.push(inv.quoted[i] ?? false);
    }
    if (args.length > 0) return nodeTest.discover(ctx, pkg, { runner: 'node-test', args, quoted });
    return pkg.files.filter((f) => DEFAULT.test(f.slice(f.lastIndexOf('/') + 1)) && !/(^|\/)(\.git|node_modules)\//.test(f));
  },
};
