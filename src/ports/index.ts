import type { FindPorts, ScanContext } from '../rules/types.ts';
import type { Finder, KindedPort } from './common.ts';
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
import { entryPorts } from './entry.ts';
import { findPlatformPorts } from './platforms.ts';
import { findProcfilePorts } from './procfile.ts';
import { findReadmePorts } from './readme.ts';
import { findRubyPorts } from './ruby.ts';
import { findRuntimeConfigPorts } from './runtime-config.ts';
import { findScriptPorts } from './scripts.ts';
import { findTaskfilePorts } from './taskfiles.ts';
import { findSourcePorts } from './source-defaults.ts';

const FINDERS: readonly Finder[] = [
  findScriptPorts, findDotenvPorts, findFrameworkConfigPorts, findComposePorts, findDockerfilePorts,
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
export const findPorts = (ctx: ScanContext): Promise<KindedPort[]> =>
  // One unit: a rescan over the same walk whose every file the finders read is as it was (an edit of a test
  // file, say) gives the rows and notes of the last run without running the finders again.
  ctx.unit('ports', findAll);

async function findAll(ctx: ScanContext): Promise<KindedPort[]> {
  // A finder that trips over a file it could not foresee loses its own rows, never the scan.
  const results = await Promise.all(FINDERS.map((find) => find(ctx).catch((error: unknown) => {
    ctx.note(`A port finder failed and was skipped: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  })));
  // Entry files are read once every finder has named the ones its command lines run.
  const entries = await entryPorts(ctx).catch((error: unknown) => {
    ctx.note(`Reading server entry files failed and was skipped: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  });
  return capRows(ctx, settleDefaults([...results.flat(), ...entries]));
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
