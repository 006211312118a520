import type { ScanContext } from '../rules/types.ts';
import { addressPort, isRecord, pick, toPort, type PortRow } from './common.ts';
import { configPorts, expressionPort, proxyPorts } from './js-config.ts';
import { createLiteralReader, type LiteralReader } from '../readers/js/literal.ts';
import { dirname } from '../rules/paths.ts';

/** Object keys holding a dev-server `port` per config family, and the tool defaults each replaces. */
interface Family { readonly keys: Readonly<Record<string, readonly string[]>> }

// React Router's dev server is Vite's, configured by the same vite.config.
const VITE: Family = { keys: { server: ['vite:5173', 'react-router:5173'], preview: ['vite:4173'] } };
const FAMILIES: ReadonlyArray<readonly [RegExp, Family]> = [
  [/^vite\.config\.[cm]?[jt]s$/, VITE],
  // Vitest and SvelteKit configs can carry Vite server options too, but do not start `vite` itself.
  [/^vitest\.config\.[cm]?[jt]s$/, { keys: { server: [], preview: [] } }],
  [/^svelte\.config\.[cm]?js$/, { keys: { server: [], preview: [] } }],
  [/^astro\.config\.[cm]?[jt]s$/, { keys: { server: ['astro:4321'] } }],
  [/^nuxt\.config\.[cm]?[jt]s$/, { keys: { devServer: ['nuxt:3000'] } }],
  [/^webpack(?:\.[\w-]+)*\.config\.[cm]?[jt]s$|^webpack\.[\w-]+\.[cm]?[jt]s$/, { keys: { devServer: ['webpack:8080'] } }],
  [/^vue\.config\.[cm]?[jt]s$/, { keys: { devServer: ['vue-cli:8080'] } }],
];

function familyOf(base: string): Family | undefined {
  // Perf: every family's name holds `config` or starts with `webpack`; most files are neither.
  if (!base.includes('config') && !base.startsWith('webpack')) return undefined;
  for (const [pattern, family] of FAMILIES) if (pattern.test(base)) return family;
  return undefined;
}

/**
 * Ports in framework configs, read as text: Vite/Vitest/SvelteKit/Astro `server.port` and
 * `preview.port`, Nuxt/webpack/Vue CLI `devServer.port`, and Angular's angular.json
 * `projects.*.architect.serve.options.port` (and an Nx project.json's `targets.serve.options.port`), and the
 * `port` of a BrowserSync plugin in a webpack config. A config port replaces the tool's default (defaults.ts).
 * Dev-server `proxy` targets (`'/api': 'http://localhost:8000'`) are connect rows: a backend elsewhere.
 */
export async function findFrameworkConfigPorts(ctx: ScanContext): Promise<PortRow[]> {
  const files = pick(ctx, (base) => base === 'angular.json' || base === 'project.json' || familyOf(base) !== undefined);
  const perFile = await Promise.all(files.map(async (file): Promise<PortRow[]> => {
    const base = file.slice(file.lastIndexOf('/') + 1);
    const dir = dirname(file);
    const row = (port: number): PortRow => ({ port, script_name: null, config_source: file, dir });
    if (base === 'angular.json') return angularPorts(await ctx.readJson(file)).map((port) => ({ ...row(port), suppress: ['angular:4200'] }));
    // An Nx project.json is one project of the same shape (`targets.serve.options.port`).
    if (base === 'project.json') return angularPorts({ projects: { nx: await ctx.readJson(file) } }).map(row);
    const family = familyOf(base)!;
    const text = await ctx.read(file);
    if (text === undefined) return [];
    const rows: PortRow[] = [];
    for (const found of configPorts(text, Object.keys(family.keys))) {
      if (found.port === undefined) {
        ctx.note(`${found.key}.port in ${file} is computed (${found.expression}); no port was read from it`);
        continue;
      }
      rows.push({ ...row(found.port), suppress: family.keys[found.key] ?? [] });
    }
    // A webpack config's BrowserSync plugin serves the page on its own `port` (JHipster: 9000).
    if (/browsersync/i.test(text)) for (const { port, kind } of browserSyncPorts(text)) rows.push({ ...row(port), ...(kind ? { kind } : {}) });
    // Only a config naming `proxy` is read for it (most do not).
    if (text.includes('proxy')) for (const port of proxyPorts(text)) rows.push({ ...row(port), kind: 'connect' });
    return rows;
  }));
  return perFile.flat();
}

/** `projects.*.(architect|targets).serve.options.port` and its per-configuration overrides. */
export function angularPorts(json: unknown): number[] {
  const out: number[] = [];
  const projects = isRecord(json) && isRecord(json.projects) ? json.projects : {};
  for (const project of Object.values(projects)) {
    if (!isRecord(project)) continue;
    const targets = isRecord(project.architect) ? project.architect : isRecord(project.targets) ? project.targets : {};
    const serve = targets.serve;
    if (!isRecord(serve)) continue;
    const options = [serve.options, ...(isRecord(serve.configurations) ? Object.values(serve.configurations) : [])];
    for (const o of options) {
      const port = isRecord(o) ? toPort(o.port) : undefined;
      if (port !== undefined) out.push(port);
    }
  }
  return out;
}

/**
 * Each `new BrowserSyncPlugin({ ..., port: 9000, proxy: 'http://localhost:8080/' })` of a webpack config,
 * read in its first 400 characters: the page it serves (`port`, a literal or a constant of the file such as
 * `const PORT = process.env.PORT || 8080`; BrowserSync's 3000 without one) and the backend it proxies (connect).
 */
export function browserSyncPorts(text: string): Array<{ port: number; kind?: 'connect' }> {
  const out: Array<{ port: number; kind?: 'connect' }> = [];
  let reader: LiteralReader | undefined;
  for (const m of text.matchAll(/\bnew\s+\w{0,20}BrowserSync\w{0,20}\s*\(/gi)) {
    const head = text.slice(m.index + m[0].length, m.index + m[0].length + 400).split(/\)\s*[,\]]/)[0]!;
    const value = /\bport\s*:\s*([^,\n}]+)/.exec(head)?.[1]?.trim();
    reader ??= createLiteralReader(text);
    const port = value === undefined ? 3000 : /^[A-Za-z_$][\w$]*$/.test(value) ? expressionPort(value, reader) : toPort(value.replace(/^['"`]|['"`]$/g, ''));
    if (port !== undefined) out.push({ port });
    const proxy = /\bproxy\s*:\s*['"`]([^'"`\n]+)['"`]/.exec(head)?.[1];
    const target = proxy === undefined ? undefined : addressPort(proxy.replace(/\/+$/, ''));
    if (target !== undefined) out.push({ port: target, kind: 'connect' });
  }
  return out;
}
