import { KNOWN_SETTINGS } from '../core/setting-keys.ts';
import { CliError, type Client } from './client.ts';
import { table } from './commands.ts';
import { json, print, type Out } from './output.ts';

const setting = (key: string): string => `/api/settings/${encodeURIComponent(key)}`;

/** `projdex set KEY VALUE`: the API refuses a value projdex cannot use for a key it reads. */
export async function set(client: Client, out: Out, [key, value, extra]: string[]): Promise<number> {
  if (key === undefined || value === undefined) {
    throw new CliError('set needs a key and a value: projdex set KEY VALUE', 2);
  }
  if (extra !== undefined) {
    throw new CliError(`set takes one value; quote a value with spaces: projdex set ${key} "…"`, 2);
  }
  const saved = (await client.request('PUT', setting(key), { value })).body as { key: string; value: string };
  if (out.values.json) return json(out, saved), 0;
  print(out, `${saved.key} = ${saved.value}`);
  return 0;
}

/** `projdex get [KEY]`: one setting's value, or every stored setting and the keys projdex reads. */
export async function get(client: Client, out: Out, [key]: string[]): Promise<number> {
  if (key !== undefined) {
    const answer = await client.request('GET', setting(key), undefined, [404]);
    const known = KNOWN_SETTINGS.find((s) => s.key === key);
    if (answer.status === 404) {
      if (out.values.json) return json(out, { key, value: null }), 0;
      print(out, `${key} is not set${known ? ` (${known.description}; values: ${known.values})` : ''}`);
      return 0;
    }
    if (out.values.json) return json(out, answer.body), 0;
    print(out, (answer.body as { value: string }).value);
    return 0;
  }
  const all = (await client.request('GET', '/api/settings')).body as Record<string, string>;
  if (out.values.json) return json(out, all), 0;
  const keys = Object.keys(all);
  if (keys.length > 0) print(out, table([['KEY', 'VALUE'], ...keys.map((k) => [k, all[k]!])]));
  else print(out, 'no settings stored');
  print(out, '');
  print(out, 'Keys projdex reads:');
  for (const s of KNOWN_SETTINGS) print(out, `  ${s.key}  ${s.description}; values: ${s.values}`);
  return 0;
}
