// Polls /health while something heavy runs, keeping the longest wait: the hostile tests assert the server
// kept answering (with a 10x margin over the bar) and print the figure.
import assert from 'node:assert/strict';
import { call } from './index.ts';

/**
 * Starts polling `url`/health every `everyMs`; `stop()` ends it and gives the longest wait in milliseconds.
 * Every answer must be a 200.
 */
export function probeHealth(url: string, everyMs = 20): { stop(): Promise<number> } {
  let done = false;
  let worst = 0;
  const polling = (async () => {
    while (!done) {
      const started = performance.now();
      assert.equal((await call(`${url}/health`)).status, 200);
      worst = Math.max(worst, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return { stop: async () => { done = true; await polling; return worst; } };
}
