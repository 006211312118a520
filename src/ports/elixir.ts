import type { ScanContext } from '../rules/types.ts';
import { dirname } from '../rules/paths.ts';
import { pick, toPort, type PortRow } from './common.ts';
import { envKind } from './kind.ts';

/**
 * Phoenix and Plug apps' ports in `config/config.exs`, `config/dev.exs` and `config/runtime.exs`: an
 * endpoint's `http: [ip: {127, 0, 0, 1}, port: 4000]`, and the fallback of a port read from the environment
 * (`String.to_integer(System.get_env("PORT") || "4000")`, `System.get_env("PORT", "4000")`, a small helper
 * `env.("PORT", "4000")`). What sits under `if config_env() == :prod do` (the generator puts the PORT block
 * there) and `config/prod.exs` is production only and not read, nor is a block an environment variable turns on
 * (`if System.get_env("HTTPS") do https: [port: 4001]`). A port found replaces `mix phx.server`'s 4000.
 */
const FILES = /(?:^|\/)config\/(?:config|dev|runtime)\.exs$/;
const MAX_TEXT = 256 * 1024;

export async function findElixirPorts(ctx: ScanContext): Promise<PortRow[]> {
  const files = pick(ctx, (base) => base.endsWith('.exs'), (path) => FILES.test(path));
  const perFile = await Promise.all(files.map(async (file) => {
    const text = await ctx.read(file);
    if (text === undefined) return [];
    const owner = dirname(dirname(file));
    return [...new Set(exsPorts(text.slice(0, MAX_TEXT)))].map((port): PortRow =>
      ({ port, script_name: null, config_source: file, dir: owner, suppress: ['phoenix:4000'] }));
  }));
  return perFile.flat();
}

/** Listen ports of one config file's text, production-only blocks left out. */
export function exsPorts(source: string): number[] {
  const text = withoutProdBlocks(source.replace(/#.*$/gm, ''));
  const out: number[] = [];
  for (const m of text.matchAll(/\bhttps?:\s*\[([^\]]{0,300})\]/g)) {
    const port = /\bport:\s*(\d{1,5})\b/.exec(m[1]!)?.[1];
    if (port !== undefined && toPort(port) !== undefined) out.push(Number(port));
  }
  // `config :hexpm, metrics_port: 9568`: a `*_port` setting of the app's own server (not `db_port`, see kind.ts).
  for (const m of text.matchAll(/\b(\w{1,40}_port):\s*(\d{1,5})\b/g)) {
    const port = toPort(m[2]);
    if (port !== undefined && envKind(m[1]!) === 'listen') out.push(port);
  }
  const fallbacks = /\b(?:System\.get_env|\w{1,20}\.)\(\s*"(\w+)"\s*(?:,\s*"?(\d{1,5})"?\s*\)|\)\s*\|\|\s*"?(\d{1,5})\b)/g;
  for (const m of text.matchAll(fallbacks)) {
    const port = toPort(m[2] ?? m[3]);
    if (port !== undefined && /PORT$/.test(m[1]!) && envKind(m[1]!) === 'listen') out.push(port);
  }
  return out;
}

const OFF_BY_DEFAULT =
  /^([ \t]*)if\s+(?:config_env\(\)\s*==\s*:prod|System\.get_env\([^)]{0,80}\)[^\n]{0,80}?|[a-z_]\w{0,40})\s+do\b/;

/**
 * The text with every `if config_env() == :prod do ... end` block, and every block an environment switch
 * opens (`if System.get_env("HTTPS") do`, `if https do`), up to its `end` at the same indent, left out, in
 * one pass.
 */
function withoutProdBlocks(text: string): string {
  const kept: string[] = [];
  let closing: string | undefined;
  for (const line of text.split('\n')) {
    if (closing !== undefined) {
      if (line.startsWith(closing) && /^end\b/.test(line.slice(closing.length))) closing = undefined;
      continue;
    }
    // Production, and opt-ins the environment turns on (`if System.get_env("HTTPS") do`, `if https do` with
    // `https = System.get_env("USE_HTTPS") == "true"` above): not what a plain `mix phx.server` binds.
    const prod = OFF_BY_DEFAULT.exec(line);
    if (prod) closing = prod[1]!;
    else kept.push(line);
  }
  return kept.join('\n');
}
