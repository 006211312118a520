/** The runners whose results projdex reads per file; any other runner's command runs as written. */
import { go } from './go.ts';
import { jest, vitest } from './jest-json.ts';
import { mocha } from './mocha.ts';
import { nodeTest } from './node-test.ts';
import { playwright } from './playwright.ts';
import { pytest } from './pytest.ts';
import type { Reporter } from './reporter.ts';

export const REPORTERS: ReadonlyMap<string, Reporter> = new Map([nodeTest, jest, vitest, mocha, playwright, pytest, go].map((r) => [r.runner, r]));
