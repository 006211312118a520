/**
 * Which words of a command line name the file it runs as a server entry (read by entry.ts). Kept apart
 * from command.ts, which calls it for every simple command once wrappers are looked through.
 */
import { basename } from '../rules/paths.ts';

/** Runners whose first file argument is a server entry (`nodemon src/index.ts`, `tsx watch src/index.ts`). */
const ENTRY_RUNNERS = new Set(['nodemon', 'tsx', 'ts-node-dev', 'tsnd', 'node-dev', 'bun', 'supervisor', 'sh', 'bash', 'zsh', 'dash']);

/**
 * Files the command may run: after an interpreter (`node -r dotenv/config server.js`), the first two
 * words that are not flags (only one names a file in the tree); after an entry runner, the same past
 * its `watch`/`run` word. entry.ts keeps the ones that exist.
 */
export function entryWords(words: readonly string[], interpreted: boolean): string[] {
  // `./boot.sh`, `sh scripts/start.sh`: entry.ts reads the script's own command lines.
  if (words[0]!.endsWith('.sh')) return [words[0]!];
  // Nest's CLI runs its entry file, src/main.ts by default (nest-cli.json `sourceRoot`/`entryFile`).
  if (basename(words[0]!) === 'nest' && words[1] === 'start') return ['src/main.ts'];
  // `nx serve [app]`: the Nx project's build `main` (entry.ts reads project.json).
  if (basename(words[0]!) === 'nx' && words[1] === 'serve') {
    const app = words.slice(2).find((w) => !w.startsWith('-'));
    return app === undefined ? ['project.json'] : [`apps/${app}/project.json`, `${app}/project.json`];
  }
  const from = interpreted ? 0 : ENTRY_RUNNERS.has(basename(words[0]!)) ? 1 : -1;
  if (from === -1) return [];
  return words.slice(from).filter((w) => !w.startsWith('-') && w !== 'watch' && w !== 'run').slice(0, 2);
}
