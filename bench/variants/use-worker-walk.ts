// Loaded with `node --import ./bench/variants/use-worker-walk.ts src/bin.ts ...`: every import of
// src/scan/walk.ts, except the variant's own, resolves to walk-in-worker.ts. The server runs unchanged.
import { registerHooks } from 'node:module';

const real = new URL('../../src/scan/walk.ts', import.meta.url).href;
const variant = new URL('./walk-in-worker.ts', import.meta.url).href;

registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    return resolved.url === real && context.parentURL !== variant ? { ...resolved, url: variant } : resolved;
  },
});
