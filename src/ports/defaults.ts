/**
 * Tool defaults. A dev server started without a port still listens on one (Vite 5173, Next 3000,
 * Create React App 3000, Angular 4200, Astro 4321, Nuxt 3000, SvelteKit via Vite 5173, Storybook 6006,
 * webpack-dev-server 8080, Django 8000, Flask 5000, Rails 3000, uvicorn 8000, gunicorn 8000, ...; the full
 * table is src/ports/tools.ts). projdex reports such a default only when a package.json script, a
 * Procfile process or a Makefile target actually runs that tool's dev/serve/start command and the line
 * sets no port itself (no port flag, no `PORT=`): the row's `script_name` is that script and its
 * `config_source` is `default:<tool>` (e.g. `default:vite`), so clients can tell a guess from a file.
 * A dependency alone (vite in devDependencies, no script running it) yields nothing, and a default is
 * also dropped when the tool's own config in the same package names the port (`server.port` in
 * vite.config.ts, `serve.options.port` in angular.json, `PORT=` in a Create React App's `.env`), since
 * the server will listen there instead.
 */
import type { KindedPort, PortRow } from './common.ts';

/** A default row for `tool` run by `script` in the package at `dir`. */
export function defaultRow(d: { readonly tool: string; readonly key: string; readonly port: number }, script: string | null, dir: string): PortRow {
  return { port: d.port, script_name: script, config_source: `default:${d.tool}`, dir, key: d.key };
}

/**
 * Drops default rows replaced by an explicit config port of the same tool and package directory, gives
 * each row its kind (a connect or container port the repository's compose file publishes is a listen port:
 * the project binds it on the host), keeps one row per port, script and source (listen, then container,
 * wins), and strips the bookkeeping fields.
 */
export function settleDefaults(rows: readonly PortRow[]): KindedPort[] {
  const replaced = new Set<string>();
  const published = new Set<number>();
  for (const row of rows) {
    for (const key of row.suppress ?? []) replaced.add(`${row.dir ?? ''}\0${key}`);
    if (row.publishes) published.add(row.port);
  }
  const byKey = new Map<string, KindedPort>();
  for (const row of rows) {
    if (row.key !== undefined && replaced.has(`${row.dir ?? ''}\0${row.key}`)) continue;
    const kind = row.kind === undefined || published.has(row.port) ? 'listen' : row.kind;
    const id = `${row.port}\0${row.script_name}\0${row.config_source}`;
    const had = byKey.get(id)?.kind;
    if (had === 'listen' || (had === 'container' && kind === 'connect')) continue;
    byKey.set(id, { port: row.port, script_name: row.script_name, config_source: row.config_source, kind });
  }
  return [...byKey.values()];
}
