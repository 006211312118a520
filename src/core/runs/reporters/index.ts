/** The runners whose results projdex reads per file; any other runner's command runs as written. */
import { cargo } from './cargo.ts';
import { go } from './go.ts';
import { jasmine } from './jasmine.ts';
import { jest, vitest } from './jest-json.ts';
import { minitest } from './minitest.ts';
import { mocha } from './mocha.ts';
import { nodeTest } from './node-test.ts';
import { playwright } from './playwright.ts';
import { phpunit } from './phpunit.ts';
import { pytest } from './pytest.ts';
import { rspec } from './rspec.ts';
import { tap } from './tap.ts';
import { unittest } from './unittest.ts';
import type { Reporter } from './reporter.ts';

export const REPORTERS: ReadonlyMap<string, Reporter> = new Map([
  nodeTest, jest, vitest, mocha, jasmine, playwright, pytest, unittest, go, cargo, rspec, minitest, phpunit, tap,
].map((r) => [r.runner, r]));
