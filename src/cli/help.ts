// Loaded by bin.ts before the Node version check, so `--help` and `--version` work on any Node >= 18:
// this file imports nothing of projdex and uses only what Node 18 has.
import { readFileSync } from 'node:fs';

export const COMMANDS = ['serve', 'add', 'ls', 'scan', 'tests', 'ports', 'status', 'stop', 'export', 'import', 'run', 'ps', 'kill'] as const;
export type Command = typeof COMMANDS[number];

const MAIN = `
  Description
    A local registry of your projects and a scanner of their test files and ports, as a JSON API.
    Without a command, projdex serves the API (the same as \`projdex serve\`).

  Usage
    $ projdex [command] [options]

  Commands
    serve                   Run the server (default)
    add [DIR]               Register DIR as a project  (default .)
    add --all DIR           Register every repository or package root under DIR
    ls                      List the registered projects
    scan [ID|DIR]           Scan a project for its test files and ports  (default .; --all for every project)
    tests ID|DIR            List a project's test files
    ports                   List the ports the projects' files name  (--conflicts: only shared ones;
                            --live: which process listens on each now)
    status                  Say whether a server runs for the data dir
    stop                    Stop that server
    export                  Print the registry (projects, settings) as JSON  (projdex export > file.json)
    import FILE             Merge a registry that export wrote, by path
    run ID|DIR [SCRIPT]     Start a script in the background and follow its output  (default dev, start, web)
    ps                      List the scripts started through projdex
    kill PROCESS_ID         Stop one of them, with everything it started

  Options
    -p, --port N            Port to listen on; 0 picks any free port  (default first free of 38124..38133)
    --port-range A-B        Ports tried in order when --port is absent  (default $PROJDEX_PORT_RANGE or 38124-38133)
    --host ADDR             Interface to bind; non-loopback needs a token  (default 127.0.0.1)
    --data-dir DIR          Where the database and server.json live  (default $PROJDEX_HOME or ~/.projdex)
    --token TOKEN           Require "Authorization: Bearer TOKEN"  (default none on loopback; generated otherwise)
    --allowed-host NAME     Also accept this Host header (repeatable)
    --allowed-origin URL    Also allow this browser origin, exactly (repeatable)
    --log                   Print one line per request to stderr
    --watch                 Rescan projects when their files change
    --keep-running          Keep serving after the process that started projdex exits
    --json                  Print the answer as JSON (every command but serve)
    -v, --version           Print the version and exit
    -h, --help              Print this help and exit  (\`projdex COMMAND --help\` for one command)

  Environment
    PROJDEX_HOME            Data directory when --data-dir is absent
    PROJDEX_HOST, PROJDEX_TOKEN   Defaults of --host and --token
    PROJDEX_PORT_RANGE=A-B  Candidate ports instead of 38124-38133 (--port-range and --port win)

  Examples
    $ npx projdex
    $ projdex add --all ~/code && projdex scan --all
    $ projdex ports --conflicts
    $ projdex --port 0 --data-dir /tmp/projdex
`;

const COMMAND_HELP: Record<Command, string> = {
  serve: `Usage
    $ projdex serve [--port N | --port-range A-B] [--host ADDR] [--data-dir DIR] [--token T] [--log] [--watch]

  One server per data dir: if one already runs, this prints its URL and exits 0. Started from a wrapper
  (npx, npm start), the server stops when that wrapper exits; --keep-running turns that off.`,
  add: `Usage
    $ projdex add [DIR] [--name NAME] [--json]
    $ projdex add --all DIR [--depth N] [--json]

  --all registers every git repository and package root (package.json, pyproject.toml, go.mod, Cargo.toml)
  under DIR, down to --depth levels (default 4), skipping dependency folders and registered projects.`,
  ls: `Usage
    $ projdex ls [--tag T] [--framework F] [--search TEXT] [--json]`,
  scan: `Usage
    $ projdex scan [ID|DIR] [--full] [--json]
    $ projdex scan --all [--full] [--json]

  A rescan reads again only what moved since the last scan; --full ignores what that scan kept and reads
  the whole tree (the same findings, slower).`,
  tests: `Usage
    $ projdex tests ID|DIR [--json]`,
  ports: `Usage
    $ projdex ports [--conflicts] [--live] [--json]

  --live adds who listens on each port now: \`pid N (this project)\`, \`pid N #ID\` (a process of another
  registered project), \`pid N other\`, \`held\` (a process this user cannot inspect), or \`-\` (free).`,
  status: `Usage
    $ projdex status [--json]

  Exits 0 when a server runs for the data dir, 3 when none does.`,
  stop: `Usage
    $ projdex stop [--json]`,
  export: `Usage
    $ projdex export > registry.json

  Prints every project's name, path, description, framework and tags, and every setting, as JSON.
  Ids, scans and git state are left out.`,
  import: `Usage
    $ projdex import registry.json [--json]

  Merges by path: a path registered here takes the file's name, description, framework and tags; a new
  one is registered; a path that is not a directory on this machine is reported and left out. Settings
  in the file are written over settings of the same name. Nothing is scanned.`,
  run: `Usage
    $ projdex run ID|DIR [SCRIPT] [--force] [--json]

  Starts a package.json script, Procfile process or Makefile target (default: dev, else start, else the
  Procfile's web) in the project's directory, in its own process group, prints the URL of each port the
  project's processes open, and follows the output. Ctrl-C stops following; the script keeps running
  (\`projdex kill ID\` stops it). When a port the script declares is already held, it is not started
  unless --force. Started by a server that runs, it stops with that server; otherwise it is kept.`,
  ps: `Usage
    $ projdex ps [--json]`,
  kill: `Usage
    $ projdex kill PROCESS_ID [--json]

  SIGTERM to the process group, SIGKILL after 5 s.`,
};

/** The help text: the whole CLI's, or one command's. */
export function helpText(command?: Command): string {
  if (!command || command === undefined) return MAIN.slice(1);
  return `\n  ${COMMAND_HELP[command]}\n\n  Options shared by every command: --data-dir DIR, --token T, --json, --help. See \`projdex --help\`.\n`.slice(1);
}

/** The package version, read from package.json beside dist/ (or src/). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
