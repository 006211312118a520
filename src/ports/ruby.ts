import type { ScanContext } from '../rules/types.ts';
import { addressPort, rowsOfFiles, toPort, type PortRow } from './common.ts';
import { dirname } from '../rules/paths.ts';

/**
 * Ports in Puma configs (`config/puma.rb`, `config/puma/<env>.rb`): `port 3000`,
 * `port ENV.fetch("PORT") { 3000 }`, `port ENV.fetch("PORT", 3000)`, `port ENV["PORT"] || 3000` and
 * `bind "tcp://0.0.0.0:9292"`. They replace the `rails s` default, and a bare `puma`'s 9292 (Puma loads
 * config/puma.rb by itself when it exists).
 */
export async function findRubyPorts(ctx: ScanContext): Promise<PortRow[]> {
  return rowsOfFiles(ctx, (base) => base.endsWith('.rb'), (text, file) => {
    // The app root is the directory holding config/.
    const dir = dirname(file.slice(0, file.lastIndexOf('config/') + 'config'.length));
    return pumaPorts(text).map((port): PortRow => ({ port, script_name: null, config_source: file, dir, suppress: ['rails:3000', 'puma:9292'] }));
  }, (path) => /(?:^|\/)config\/(?:puma\.rb|puma\/[\w-]+\.rb)$/.test(path));
}

/** Ports of `port` and `bind` directives in a Puma config. */
export function pumaPorts(text: string): number[] {
  const out: number[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    const port = /^port\b\s*\(?\s*(.+)$/.exec(line);
    if (port) {
      // `port 3000, "0.0.0.0"`: the first argument is the port.
      const literal = toPort(port[1]!.split(/[,)]/)[0]) ?? rubyDefault(port[1]!);
      if (literal !== undefined) out.push(literal);
      continue;
    }
    const bind = /^bind\s*\(?\s*["']([^"']+)["']/.exec(line);
    if (bind) {
      const p = addressPort(bind[1]!.replace(/#\{[^}]*\}/g, ''));
      if (p !== undefined) out.push(p);
    }
  }
  return out;
}

/** The literal default of `ENV.fetch("PORT") { 3000 }`, `ENV.fetch("PORT", 3000)`, `ENV["PORT"] || 3000`. */
function rubyDefault(expr: string): number | undefined {
  const m = /\{\s*["']?(\d+)["']?\s*\}|,\s*["']?(\d+)["']?\s*\)|\|\|\s*["']?(\d+)["']?/.exec(expr);
  return m ? toPort(m[1] ?? m[2] ?? m[3]) : undefined;
}
