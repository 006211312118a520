#!/usr/bin/env node
// Kept free of static imports of projdex modules: on a Node without node:sqlite this file must still
// load, and say so in one sentence instead of a stack trace.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13) || !process.getBuiltinModule?.('node:sqlite')) {
  process.stderr.write(`projdex needs Node.js 22.13 or newer (for node:sqlite); this is Node.js ${process.versions.node}.\n`);
  process.exit(1);
}
const { main } = await import('./cli.ts');
process.exitCode = await main(process.argv.slice(2), process.env, process);
