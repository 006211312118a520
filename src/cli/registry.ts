import { promises as fsp } from 'node:fs';
import { resolve } from 'node:path';
import type { ImportAnswer } from '../server/api/registry.ts';
import { CliError, type Client } from './client.ts';
import type { CliIo, Values } from './types.ts';

interface Out { readonly io: CliIo; readonly values: Values }

/**
 * The server's body limit: a bigger file could never be imported, so it is refused before reading it
 * whole.
 */
const MAX_FILE = 1_048_576;

/** `projdex export`: the registry document on stdout (always JSON; redirect it to a file). */
export async function exportRegistry(client: Client, { io }: Out): Promise<number> {
  const { body } = await client.request('GET', '/api/export');
  io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  return 0;
}

/**
 * `projdex import FILE`: merges a document `projdex export` wrote; says what was added, updated and left
 * out.
 */
export async function importRegistry(
  client: Client,
  { io, values }: Out,
  positionals: string[],
): Promise<number> {
  const file = positionals[0];
  if (!file) throw new CliError('import needs a file: projdex import FILE', 2);
  let text: string;
  try {
    const handle = await fsp.open(resolve(file), 'r');
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new CliError(`${file} is not a regular file`);
      if (info.size > MAX_FILE) throw new CliError(`${file} is larger than 1 MiB, the most one import takes`);
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`Cannot read ${file}: `
      + `${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new CliError(`${file} is not JSON; write it with \`projdex export > ${file}\``);
  }
  const answer = (await client.request('POST', '/api/import', document)).body as ImportAnswer;
  if (values.json) {
    io.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    return 0;
  }
  for (const p of answer.added) io.stdout.write(`added #${p.id} ${p.name}  ${p.path}\n`);
  for (const p of answer.updated) io.stdout.write(`updated #${p.id} ${p.name}  ${p.path}\n`);
  for (const m of answer.missing) io.stdout.write(`not here: ${m.name}  ${m.path} (${m.error})\n`);
  io.stdout.write(`${answer.added.length} added, ${answer.updated.length} updated, `
    + `${answer.missing.length} not on this machine, `
    + `${answer.settings} setting${answer.settings === 1 ? '' : 's'} written\n`);
  return 0;
}
