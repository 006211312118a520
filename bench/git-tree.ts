import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Makes the tree at `dir` a git repository with every file committed and its installs ignored, as projects
 * keep them, then refreshes the index so that `git status` there costs what it costs in a clean checkout.
 * Git runs with no configuration of this machine's user. Returns the number of tracked files, or null when
 * no `git` executable runs here (the rows that need one are left out).
 */
export function commitTree(dir: string): number | null {
  const env = { PATH: process.env.PATH, HOME: dir, LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1' };
  const git = (...args: string[]): string => execFileSync('git', args, {
    cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 512 << 20,
  }).toString();
  try { git('--version'); } catch { return null; }
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-q', '--no-verify', '-m', 'bench');
  git('update-index', '-q', '--refresh');
  return git('ls-files', '-z').split('\0').length - 1;
}
