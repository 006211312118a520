import { spawn } from 'node:child_process';
import { liveServer } from '../server/datadir.ts';
import { CliError, type Client } from './client.ts';
import { json, print, type Out } from './output.ts';
import { findProject } from './project-ref.ts';
import type { Env } from './types.ts';

/** The command that hands a URL to the desktop's browser, or undefined where none can open one. */
export function browserCommand(
  env: Env,
  platform: NodeJS.Platform = process.platform,
): [string, string[]] | undefined {
  if (env.BROWSER === 'none') return undefined;
  if (platform === 'darwin') return ['open', []];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""']];
  // Elsewhere a browser needs a display: over ssh or in a container xdg-open would fail or pick a text
  // browser.
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
  return ['xdg-open', []];
}

/**
 * `projdex open [REF]`: the dashboard (or one project's page) of the server that runs for the data dir.
 * The URL is always printed; a browser is started only when stdout is a terminal, detached and not
 * waited for, so a script or a test never hangs on it.
 */
export async function open(
  client: Client,
  out: Out,
  [ref]: string[],
  options: { dataDir: string; env: Env; tty: boolean },
): Promise<number> {
  if (!client.remote) {
    throw new CliError('projdex is not running for this data dir; start it with `projdex serve` (or '
      + '`projdex serve --keep-running > projdex.log 2>&1 &`), then run `projdex open` again');
  }
  const project = ref === undefined ? undefined : await findProject(client, ref);
  const live = await liveServer(options.dataDir);
  const base = live?.url ?? client.url;
  const url = `${base}/${project ? `#/project/${project.id}` : ''}`;
  const browser = options.tty ? browserCommand(options.env) : undefined;
  if (browser) {
    const [command, args] = browser;
    const child = spawn(command, [...args, url], { detached: true, stdio: 'ignore' });
    child.once('error', () => {}); // no such program: the printed URL is the answer
    child.unref();
  }
  if (out.values.json) return json(out, { url, opened: browser !== undefined }), 0;
  print(out, browser ? `opening ${url}` : url);
  return 0;
}
