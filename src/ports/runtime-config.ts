import type { ScanContext } from '../rules/types.ts';
import { parseJsonc } from '../readers/jsonc.ts';
import { parseToml } from '../readers/toml.ts';
import { parseYaml } from '../readers/yaml.ts';
import { dirname } from '../rules/paths.ts';
import { addressPort, isRecord, pick, toPort, type PortRow } from './common.ts';
import { isLocalAddress, namesClient } from './kind.ts';

/**
 * Ports in the runtime config files an app reads at start: node-config's `config/default.json`
 * (`{ "server": { "port": 3000 } }`), a Rust service's `configuration/base.yaml` (`application: { port: 8000 }`,
 * read by the `config` crate), a Go server's `config.yml` given with `--config` (`http.port: 6157`, dotted keys),
 * Spring Cloud Config's `src/main/resources/shared/<service>.yml` (`server.port: 4000`), Streamlit's
 * `.streamlit/config.toml` (`[server] port = 8501`). Only a section that names the app's own server counts
 * (`server`, `http`, `application`, `app`, `web`, `listen`): `database.port`, `redis.port`, `smtp.port` and
 * `api.port` (an upstream as often as the app) are not. Files for production or tests (`production.yaml`,
 * `test.json`) are not a dev machine's; Spring's `application*.yml`, Rails' `config/*.rb` and
 * `supabase/config.toml` have their own finders.
 */

const MAX_FILES = 100;
const MAX_TEXT = 256 * 1024;
const CONFIG_DIR = /(?:^|\/)(?:config|configs|configuration|conf|settings)\/[^/]+$/;
const SPRING_SHARED = /(?:^|\/)src\/main\/resources\/shared\/[^/]+$/;
const ROOT_NAMES = /^(?:config|settings)\.(?:ya?ml|toml|json)$/;
const FORMAT = /\.(?:ya?ml|toml|json)$/;
const NOT_DEV = /^(?:prod|production|staging|stage|test|tests|testing|ci|e2e|docker|k8s|kubernetes|deploy|release)(?:[._-]|$)/i;
const SKIPPED = new RegExp('(?:^|/)(?:examples?|testdata|tests?|fixtures|charts|helm|k8s|kubernetes|deploy|'
  + '\\.github|\\.vscode|\\.idea|\\.devcontainer|supabase|node_modules)/');
const SERVER_SECTIONS = new Set(['server', 'http', 'application', 'app', 'web', 'listen', 'webserver', 'http_server', 'httpserver']);
const PORT_KEYS = new Set(['port', 'http_port', 'httpport', 'listen_port', 'listenport']);
const ADDRESS_KEYS = new Set(['addr', 'address', 'listen', 'listen_addr', 'listenaddr', 'bind', 'bind_address']);

export async function findRuntimeConfigPorts(ctx: ScanContext): Promise<PortRow[]> {
  const files = pick(ctx, (b) => FORMAT.test(b) && !b.startsWith('application') && !b.startsWith('tsconfig')
    && !b.startsWith('package') && !NOT_DEV.test(b), (p, b) => !SKIPPED.test(p)
    && (CONFIG_DIR.test(p) || SPRING_SHARED.test(p) || ROOT_NAMES.test(b) || p.endsWith('.streamlit/config.toml')));
  if (files.length > MAX_FILES) ctx.note(`${files.length} config files; only the first ${MAX_FILES} were read for listen ports`);
  const perFile = await Promise.all(files.slice(0, MAX_FILES).map(async (file): Promise<PortRow[]> => {
    const text = (await ctx.read(file))?.slice(0, MAX_TEXT);
    if (text === undefined) return [];
    const doc = parse(file, text);
    // The package the file belongs to: the folder above a config folder, or the file's own folder.
    const here = dirname(file);
    const dir = CONFIG_DIR.test(file) ? dirname(here) : SPRING_SHARED.test(file) ? here.slice(0, -'/src/main/resources/shared'.length) : here;
    return [...new Set(serverPorts(doc))].map((port) => ({ port, script_name: null, config_source: file, dir }));
  }));
  return perFile.flat();
}

function parse(file: string, text: string): unknown {
  try {
    return file.endsWith('.toml') ? parseToml(text) : file.endsWith('.json') ? parseJsonc(text) : parseYaml(text);
  } catch {
    return undefined;
  }
}

/**
 * Ports of the app's own server in a parsed config: `port`-like keys and local addresses under a server
 * section at the top (or one level down: `development.server.port`), and dotted top-level keys (`http.port`).
 */
export function serverPorts(doc: unknown): number[] {
  if (!isRecord(doc)) return [];
  const out: number[] = [];
  const section = (value: unknown): void => {
    if (!isRecord(value)) return;
    for (const [key, v] of Object.entries(value)) {
      const name = key.toLowerCase().replace(/-/g, '_');
      if (namesClient(key)) continue;
      if (PORT_KEYS.has(name)) pushPort(out, toPort(v));
      else if (ADDRESS_KEYS.has(name) && typeof v === 'string' && isLocalAddress(v)) pushPort(out, addressPort(v));
    }
  };
  const top = Object.entries(doc).slice(0, 200);
  for (const [key, value] of top) {
    const dotted = key.toLowerCase().split('.');
    if (dotted.length === 2 && SERVER_SECTIONS.has(dotted[0]!)) section({ [dotted[1]!]: value });
    else if (SERVER_SECTIONS.has(key.toLowerCase())) section(value);
    else if (/^(?:default|development|dev|local)$/i.test(key) && isRecord(value)) {
      for (const [inner, v] of Object.entries(value).slice(0, 200)) if (SERVER_SECTIONS.has(inner.toLowerCase())) section(v);
    }
  }
  return out;
}

function pushPort(out: number[], port: number | undefined): void {
  if (port !== undefined) out.push(port);
}
