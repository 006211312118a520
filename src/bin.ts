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
  enableCompileCache(process.env);
  const { main } = await import('./cli.ts');
  process.exitCode = await main(process.argv.slice(2), process.env, process);
}

/**
 * Node keeps what it compiled (for `.ts` files, after stripping their types) between starts, so every start
 * after the first compiles nothing: the server's start-up CPU ~490 -> ~150 ms. In a directory only this user
 * can write, or not at all: an entry someone else wrote there would be code this process runs. Node's own
 * `NODE_COMPILE_CACHE=dir` names another directory (Node has then enabled it already) and
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 */
function enableCompileCache(env: NodeJS.ProcessEnv): void {
  if (env.NODE_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE) return;
  const { lstatSync, mkdirSync } = process.getBuiltinModule('node:fs');
  const { join } = process.getBuiltinModule('node:path');
  const uid = process.getuid?.();
  const dir = join(process.getBuiltinModule('node:os').tmpdir(), `projdex-compile-cache-${uid ?? 'user'}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return;
  }
  try {
    // Made by someone else, writable by others, or a link: not used.
    const info = lstatSync(dir);
    if (!info.isDirectory() || (uid !== undefined && info.uid !== uid) || (info.mode & 0o022) !== 0) return;
  } catch {
    return;
  }
  process.getBuiltinModule('node:module').enableCompileCache?.(dir);
}
