import type { ScanContext } from '../rules/types.ts';
import { addressPort, isRecord, pick, toPort, type PortRow } from './common.ts';
import { dirname } from '../rules/paths.ts';
import { parseToml, tomlGet, type TomlTable } from '../readers/toml.ts';

/**
 * Emulator ports of the Firebase Local Emulator Suite when the emulator sets none (Firebase docs,
 * "Configure Emulator Suite"). `hub` and `logging` run with the suite but are reported only when listed.
 */
const FIREBASE_DEFAULTS: Readonly<Record<string, number>> = {
  auth: 9099, functions: 5001, firestore: 8080, database: 9000, hosting: 5000, pubsub: 8085, storage: 9199,
  eventarc: 9299, dataconnect: 9399, tasks: 9499, apphosting: 5002, ui: 4000, hub: 4400, logging: 4500,
};

/**
 * Ports of platform configs that run servers locally:
 * - `firebase.json` `emulators.<name>.port` (the emulator's default when it names none; `ui.enabled: false`
 *   means no UI), attributed to the emulator;
 * - .NET `Properties/launchSettings.json` `profiles.<name>.applicationUrl` (`https://localhost:7001;http://localhost:5000`),
 *   attributed to the launch profile;
 * - netlify.toml / wrangler.toml / wrangler.json(c) `[dev] port` and supabase/config.toml section ports (tomlPorts).
 */
export async function findPlatformPorts(ctx: ScanContext): Promise<PortRow[]> {
  const files = pick(ctx, (base) => base === 'firebase.json' || base === 'netlify.toml' || base === 'wrangler.toml'
    || base === 'config.toml' || base === 'launchSettings.json' || base === 'wrangler.json' || base === 'wrangler.jsonc',
  (path, base) => (base !== 'config.toml' || path.endsWith('supabase/config.toml'))
    && (base !== 'launchSettings.json' || path.endsWith('Properties/launchSettings.json')));
  const perFile = await Promise.all(files.map(async (file): Promise<PortRow[]> => {
    const base = file.slice(file.lastIndexOf('/') + 1);
    const dir = dirname(file);
    if (TOML_CONFIGS.has(base)) {
      const text = await ctx.read(file);
      // supabase/config.toml belongs to the project holding the supabase/ directory.
      const owner = base === 'config.toml' ? dirname(dir) : dir;
      return text === undefined ? [] : tomlPorts(base, text).map(([name, port, suppress]) =>
        ({ port, script_name: name, config_source: file, dir: owner, ...(suppress ? { suppress: [suppress] } : {}) }));
    }
    if (base.startsWith('wrangler.')) {
      // wrangler.json(c) is JSON with comments: `"dev": { "port": 8787 }` replaces `wrangler dev`'s default.
      const port = wranglerJsonPort(await ctx.readJson(file));
      return port === undefined ? [] : [{ port, script_name: 'dev', config_source: file, dir, suppress: ['wrangler:8787'] }];
    }
    const json = await ctx.readJson(file);
    const found = base === 'firebase.json' ? firebasePorts(json) : launchPorts(json);
    return found.map(([name, port]) => ({ port, script_name: name, config_source: file, dir }));
  }));
  return perFile.flat();
}

const TOML_CONFIGS: ReadonlySet<string> = new Set(['netlify.toml', 'wrangler.toml', 'config.toml']);
/** Sections of supabase/config.toml whose `port` the local stack (`supabase start`) publishes on the host. */
const SUPABASE_SECTIONS = ['api', 'db', 'studio', 'inbucket', 'analytics', 'realtime', 'pooler'];

/**
 * `[name, port, default it replaces]` of a TOML config: netlify.toml `[dev] port` (replacing `netlify dev`'s
 * 8888), wrangler.toml `[dev] port` (replacing `wrangler dev`'s 8787), supabase/config.toml `[api|db|studio|...] port`.
 */
export function tomlPorts(base: string, text: string): Array<[string, number, string | undefined]> {
  let doc: TomlTable;
  try {
    doc = parseToml(text);
  } catch {
    return [];
  }
  if (base === 'netlify.toml' || base === 'wrangler.toml') {
    const port = toPort(tomlGet(doc, 'dev.port'));
    return port === undefined ? [] : [['dev', port, base === 'netlify.toml' ? 'netlify:8888' : 'wrangler:8787']];
  }
  // A config.toml is Supabase's only when it says so (`project_id` and an `[api]` or `[db]` table).
  if (tomlGet(doc, 'project_id') === undefined || (tomlGet(doc, 'api') === undefined && tomlGet(doc, 'db') === undefined)) return [];
  const out: Array<[string, number, string | undefined]> = [];
  for (const section of SUPABASE_SECTIONS) {
    const enabled = tomlGet(doc, `${section}.enabled`);
    const port = toPort(tomlGet(doc, `${section}.port`));
    if (port !== undefined && enabled !== false) out.push([`supabase:${section}`, port, undefined]);
  }
  return out;
}

/** `[emulator, port]` of a firebase.json. */
export function firebasePorts(json: unknown): Array<[string, number]> {
  const emulators = isRecord(json) && isRecord(json.emulators) ? json.emulators : {};
  const out: Array<[string, number]> = [];
  for (const [name, options] of Object.entries(emulators)) {
    if (!isRecord(options) || options.enabled === false) continue;
    const port = toPort(options.port) ?? FIREBASE_DEFAULTS[name];
    if (port !== undefined && Object.hasOwn(FIREBASE_DEFAULTS, name)) out.push([name, port]);
  }
  return out;
}

/** `[profile, port]` of a launchSettings.json, one per URL of `applicationUrl`. */
export function launchPorts(json: unknown): Array<[string, number]> {
  const profiles = isRecord(json) && isRecord(json.profiles) ? json.profiles : {};
  const out: Array<[string, number]> = [];
  for (const [name, profile] of Object.entries(profiles)) {
    const urls = isRecord(profile) && typeof profile.applicationUrl === 'string' ? profile.applicationUrl.split(';') : [];
    for (const url of urls.slice(0, 10)) {
      const port = addressPort(url.trim().replace(/\/+$/, ''));
      if (port !== undefined) out.push([name, port]);
    }
  }
  return out;
}

/** `dev.port` of a parsed wrangler.json or wrangler.jsonc. */
export function wranglerJsonPort(json: unknown): number | undefined {
  return isRecord(json) && isRecord(json.dev) ? toPort(json.dev.port) : undefined;
}
