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
import { findRubyPorts } from './ruby.ts';
import { findScriptPorts } from './scripts.ts';
import { findTaskfilePorts } from './taskfiles.ts';
import { findSourcePorts } from './source-defaults.ts';

const FINDERS: readonly Finder[] = [
  findScriptPorts, findDotenvPorts, findFrameworkConfigPorts, findComposePorts, findDockerfilePorts,
  findProcfilePorts, findMakefilePorts, findJvmPorts, findRubyPorts, findComposerPorts,
  findPlatformPorts, findSourcePorts, findElixirPorts, findOrchestratorPorts, findTaskfilePorts,
];

/**
 * Ports named by a project's files: package.json scripts, dotenv files, framework configs, compose
 * files, Dockerfiles, Procfiles, Makefiles, Taskfiles and justfiles, Spring, Puma and Phoenix configs,
 * platform configs, dev orchestrators (Tilt, kind, Skaffold), and listen calls in Go, Rust and Python entry
 * sources, anywhere in the tree. Container-only ports (EXPOSE, unpublished compose ports) are `container`
 * rows. Tool defaults appear only for scripts that run a dev server without a port (see defaults.ts).
 * Files that cannot be read or parsed are skipped. Each row has a `kind` (listen, connect or container, see kind.ts);
 * rows are unsorted, one per port, script and source; scan() sorts them.
 *
 * @example
 * const ports = await findPorts(ctx); // [{ port: 5174, script_name: null, config_source: 'vite.config.ts' }, ...]
 */
export const findPorts = async (ctx: ScanContext): Promise<KindedPort[]> => {
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
  return settleDefaults([...results.flat(), ...entries]);
};
// Still a FindPorts: scan() keeps the rows' `kind` as it sorts them.
findPorts satisfies FindPorts;
