import type { ScanContext } from '../scan/types.ts';
import { addressPort, isRecord, pick, toPort, type PortRow } from './common.ts';
import { dirname } from '../scan/paths.ts';

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
 *   attributed to the launch profile.
 */
export async function findPlatformPorts(ctx: ScanContext): Promise<PortRow[]> {
  const files = pick(ctx, (base, path) =>
    base === 'firebase.json' || (base === 'launchSettings.json' && path.endsWith('Properties/launchSettings.json')));
  const perFile = await Promise.all(files.map(async (file): Promise<PortRow[]> => {
    const json = await ctx.readJson(file);
    const dir = dirname(file);
    const found = file.endsWith('firebase.json') ? firebasePorts(json) : launchPorts(json);
    return found.map(([name, port]) => ({ port, script_name: name, config_source: file, dir }));
  }));
  return perFile.flat();
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
