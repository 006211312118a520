import { execFileSync } from 'node:child_process';
import { gitEnv } from '../../src/core/git.ts';

/** An environment for git in tests: projdex's own allow-list, without this machine's git configuration. */
export const quietGitEnv: NodeJS.ProcessEnv = {
  ...gitEnv(process.env), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1',
};

/** Runs the real git in `cwd` as a test's author (output returned, stderr kept out of the test's log). */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], {
    cwd, env: quietGitEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
  });
}
