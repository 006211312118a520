import { readFileSync } from 'node:fs';
import { CliError } from './client.ts';
import type { Env, Values } from './types.ts';

/**
 * The token a command uses: `--token-file FILE` (first line), else `--token`, else `PROJDEX_TOKEN`. A file
 * or the environment keep the token out of `ps` and shell history; `--token T` shows it to every local user.
 */
export function tokenOf(values: Values, env: Env): string | undefined {
  const file = values['token-file'];
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new CliError(`Cannot read the token file ${file}: `
        + `${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    const token = text.split(/\r?\n/, 1)[0]!.trim();
    if (token === '') throw new CliError(`The token file ${file} is empty`);
    return token;
  }
  return values.token || env.PROJDEX_TOKEN || undefined;
}
