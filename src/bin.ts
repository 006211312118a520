#!/usr/bin/env node
// Kept free of static imports of projdex modules: on a Node without node:sqlite this file must still
// load, answer --help and --version, and otherwise say in one sentence what to run instead.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13) || !process.getBuiltinModule?.('node:sqlite')) {
  const args = process.argv.slice(2);
  const { helpText, version } = await import('./cli/help.ts');
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(helpText());
  } else if (args.includes('--version') || args.includes('-v')) {
    process.stdout.write(`${version()}\n`);
  } else {
    const { oldNodeMessage } = await import('./cli/old-node.ts');
    process.stderr.write(oldNodeMessage(import.meta.url, process.versions.node));
    process.exitCode = 1;
  }
} else {
  // A reader that closed the pipe early (`projdex scan --all --json | head -1`) ends the command quietly,
  // as it ends `cat`: no EPIPE stack trace.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(process.exitCode ?? 0);
    });
  }
  const { main } = await import('./cli.ts');
  process.exitCode = await main(process.argv.slice(2), process.env, process);
}
