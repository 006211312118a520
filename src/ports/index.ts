import { allInOrder } from '../rules/part-log.ts';
import type { FindPorts, ScanContext } from '../rules/types.ts';
import { NO_MEMBERS, type Finder, type KindedPort } from './common.ts';
import { findComposePorts } from './compose.ts';
import { findComposerPorts } from './composer.ts';
import { settleDefaults } from './defaults.ts';
import { findDockerfilePorts } from './dockerfile.ts';
import { findDotenvPorts } from './dotenv.ts';
import { findOrchestratorPorts } from './orchestrators.ts';
import { findElixirPorts } from './elixir.ts';
import { findFrameworkConfigPorts } from './framework-configs.ts';
import { findJvmPorts } from './jvm.ts';
import { findMakefilePorts } from './makefile.ts';
import { entryPorts, MAX_ENTRIES, withEntries, type Found } from './entry.ts';
import { findPlatformPorts } from './platforms.ts';
import { findProcfilePorts } from './procfile.ts';
import { findReadmePorts } from './readme.ts';
import { findRubyPorts } from './ruby.ts';
import { findRuntimeConfigPorts } from './runtime-config.ts';
import { findScriptPorts } from './scripts.ts';
import { findTaskfilePorts } from './taskfiles.ts';
import { findSourcePorts } from './source-defaults.ts';

/** The finders after the package.json scripts' (scripts.ts, a unit per file), in their notes' order. */
const FINDERS: readonly Finder[] = [
  findDotenvPorts, findFrameworkConfigPorts, findComposePorts, findDockerfilePorts,
  findProcfilePorts, findMakefilePorts, findJvmPorts, findRubyPorts, findComposerPorts,
  findPlatformPorts, findSourcePorts, findElixirPorts, findOrchestratorPorts, findTaskfilePorts,
  findReadmePorts, findRuntimeConfigPorts,
];

/**
 * Ports named by a project's files: package.json scripts, dotenv files, framework configs, compose
 * files, Dockerfiles, Procfiles, Makefiles, Taskfiles and justfiles, Spring, Puma and Phoenix configs, runtime
 * config files (`config/default.json`'s `server.port`),
 * platform configs, dev orchestrators (Tilt, kind, Skaffold), and listen calls in Go, Rust and Python entry
 * sources, and the start commands of READMEs' fenced shell blocks, anywhere in the tree. Container-only ports
 * (EXPOSE, unpublished compose ports, production compose files) are `container` rows. Tool defaults appear only for scripts that run a dev server without a port (see defaults.ts).
 * Files that cannot be read or parsed are skipped. Each row has a `kind` (listen, connect or container, see kind.ts);
 * rows are unsorted, one per port, script and source; scan() sorts them.
 *
 * @example
 * const ports = await findPorts(ctx); // [{ port: 5174, script_name: null, config_source: 'vite.config.ts' }, ...]
 */
export async function findPorts(ctx: ScanContext): Promise<KindedPort[]> {
  // Each finder is a unit, answered from its record on a rescan while every file it read is as it was (the
  // scripts' finder a unit per package.json), so an edit runs again only the finders that read the file.
  // Notes come in the finders' order, whichever finished first or was answered from its record.
  const found = await allInOrder(ctx, [scriptPorts, ...FINDERS.map(asUnit)], (own, find) => find(own));
  // Entry files are read once every finder has named the ones its command lines run: a unit of their own,
  // keyed by what was named.
  const refs = found.flatMap((one) => one.entries).slice(0, MAX_ENTRIES);
  const entries = refs.length === 0 ? [] : await ctx.unit(`ports\0entries\0${JSON.stringify(refs)}`, (view) =>
    entryPorts(view, refs).catch((error: unknown) => {
      const why = error instanceof Error ? error.message : String(error);
      view.note(`Reading server entry files failed and was skipped: ${why}`);
      return [];
    }), { members: NO_MEMBERS });
  return capRows(ctx, settleDefaults([...found.flatMap((one) => one.rows), ...entries]));
}

/** The scripts' finder, whose units are per package.json. */
const scriptPorts = (ctx: ScanContext): Promise<Found> => failSoft(ctx, findScriptPorts);

/** A finder as a unit (`ports\0` and its name): it sees the whole tree, answered over the kept walk only. */
const asUnit = (find: Finder) => (ctx: ScanContext): Promise<Found> =>
  ctx.unit(`ports\0${find.name}`, (view) => failSoft(view, (seen) => withEntries(seen, find)));

/** A finder that trips over a file it could not foresee loses its own rows, never the scan. */
async function failSoft(ctx: ScanContext, find: (ctx: ScanContext) => Promise<Found>): Promise<Found> {
  try {
    return await find(ctx);
  } catch (error) {
    ctx.note(`A port finder failed and was skipped: ${error instanceof Error ? error.message : String(error)}`);
    return { rows: [], entries: [] };
  }
}

/**
 * Most port rows one project keeps. Real projects name a few dozen; a file can name every port there is
 * (`EXPOSE 1` ... `EXPOSE 65535`), and each row is stored and sent on every listing.
 */
export const MAX_PORT_ROWS = 1_000;

/** The first `MAX_PORT_ROWS` rows in port order, with a note saying how many were left out. */
function capRows(ctx: ScanContext, rows: KindedPort[]): KindedPort[] {
  if (rows.length <= MAX_PORT_ROWS) return rows;
  const bySource = (a: KindedPort, b: KindedPort): number => (a.config_source < b.config_source ? -1 : a.config_source > b.config_source ? 1 : 0);
  const kept = rows.sort((a, b) => a.port - b.port || bySource(a, b)).slice(0, MAX_PORT_ROWS);
  const sources = [...new Set(rows.slice(MAX_PORT_ROWS).map((r) => r.config_source))];
  ctx.note(`The project's files name ${rows.length} ports; only the lowest ${MAX_PORT_ROWS} are listed `
    + `(the rest come from ${sources.slice(0, 3).join(', ')}${sources.length > 3 ? ', ...' : ''})`);
  return kept;
}
// Still a FindPorts: scan() keeps the rows' `kind` as it sorts them.
findPorts satisfies FindPorts;
