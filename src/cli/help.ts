// Loaded by bin.ts before the Node version check, so `--help` and `--version` work on any Node >= 18:
// this file imports nothing of projdex and uses only what Node 18 has.
import { readFileSync } from 'node:fs';

export const COMMANDS = [
  'serve', 'add', 'ls', 'scan', 'tests', 'test', 'ports', 'status', 'stop', 'rm', 'edit', 'tag', 'set', 'get',
  'open', 'export', 'import', 'run', 'ps', 'kill',
] as const;
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
    test [ID|DIR|NAME] [FILE...]  Run a project's own tests, streaming the output  (default .; --failed)
    ports                   List the ports the projects' files name  (--conflicts: only shared ones;
                            --live: which process listens on each now)
    status                  Say whether a server runs for the data dir
    stop                    Stop that server
    rm PROJECT...           Forget projects (the directories stay)
    edit PROJECT --name N   Change a project's --name, --description, --framework
    tag PROJECT add|rm T... Add or remove a project's tags
    set KEY VALUE           Store a setting  (\`projdex get\` lists the keys projdex reads)
    get [KEY]               Print a setting, or all of them
    open [PROJECT]          Open the dashboard (or print its URL where no browser can open)
    export                  Print the registry (projects, settings) as JSON  (projdex export > file.json)
    import FILE             Merge a registry that export wrote, by path
    run PROJECT [SCRIPT]    Start a script in the background and follow its output  (default dev, start, web)
    ps                      List the scripts started through projdex
    kill PROCESS_ID         Stop one of them, with everything it started

    PROJECT is an id, a name, or a directory (a folder inside a project means that project).

  Options
    -p, --port N            Port to listen on; 0 picks any free port  (default first free of 38124..38133)
    --port-range A-B        Ports tried in order when --port is absent  (default $PROJDEX_PORT_RANGE or 38124-38133)
    --host ADDR             Interface to bind; non-loopback needs a token  (default 127.0.0.1)
    --data-dir DIR          Where the database and server.json live  (default $PROJDEX_HOME or ~/.projdex)
    --token TOKEN           Require "Authorization: Bearer TOKEN"  (default none on loopback; generated otherwise)
    --token-file FILE       The token from FILE's first line: unlike --token, not shown by \`ps\`
    --allowed-host NAME     Also accept this Host header (repeatable)
    --allowed-origin URL    Also allow this browser origin, exactly (repeatable)
    --log                   Print one line per request to stderr
    --watch                 Rescan projects when their files change
    --keep-running          Keep serving after the npm or npx that started projdex exits
    --json                  Print the answer as JSON (every command but serve)
    -v, --version           Print the version and exit
    -h, --help              Print this help and exit  (\`projdex COMMAND --help\` for one command)

  Environment
    PROJDEX_HOME            Data directory when --data-dir is absent
    PROJDEX_HOST, PROJDEX_TOKEN   Defaults of --host and --token (the variable keeps the token out of \`ps\`)
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
  (npx, npm start), the server stops when that wrapper exits; --keep-running turns that off. Started
  any other way (a shell, \`projdex serve > projdex.log 2>&1 &\` in a script, nohup, setsid, a process
  manager), it runs until a signal or \`projdex stop\`.`,
  add: `Usage
    $ projdex add [DIR] [--name NAME] [--force] [--json]
    $ projdex add --all DIR [--depth N] [--json]

  add refuses your home directory and a folder that holds registered projects; --force registers it anyway.

  --all registers every git repository and project root under DIR (package.json, pyproject.toml,
  requirements.txt, setup.py, setup.cfg, Pipfile, go.mod, Cargo.toml, Gemfile, composer.json, mix.exs,
  pom.xml, build.gradle(.kts), *.csproj, *.sln, deno.json), down to --depth levels (default 4, at most
  16), skipping dependency folders and registered projects; it does not look inside a root.`,
  ls: `Usage
    $ projdex ls [--tag T] [--framework F] [--search TEXT] [--json]`,
  scan: `Usage
    $ projdex scan [ID|DIR] [--full] [--json]
    $ projdex scan --all [--full] [--json]

  A rescan reads again only what moved since the last scan; --full ignores what that scan kept and reads
  the whole tree (the same findings, slower).`,
  tests: `Usage
    $ projdex tests ID|DIR [--json]`,
  test: `Usage
    $ projdex test [ID|DIR|NAME] [FILE...] [--failed] [--json]

  Runs each test command the last scan recorded, in its package's directory, and ends with a summary per
  test file (failed first). FILE... runs only those files; --failed only the files that failed last time.
  Exits 0 when every test passed, 1 otherwise, 130 on Ctrl-C (the run is canceled).`,
  ports: `Usage
    $ projdex ports [--conflicts] [--live] [--json]

  --json prints one entry per port: [{ port, conflict, projects: [{ project_id, name, scripts, sources }] }]
  (conflict: more than one project claims the port; sources: the files that name it).
  --live adds who listens on each port now: \`pid N (this project)\`, \`pid N #ID\` (a process of another
  registered project), \`pid N other\`, \`held\` (a process this user cannot inspect), or \`-\` (free).`,
  status: `Usage
    $ projdex status [--json]

  Exits 0 when a server runs for the data dir, 3 when none does.`,
  stop: `Usage
    $ projdex stop [--json]`,
  rm: `Usage
    $ projdex rm PROJECT... [--json]

  Forgets the projects and what their scans found; their directories are not touched.`,
  edit: `Usage
    $ projdex edit PROJECT [--name N] [--description D] [--framework F] [--json]

  An empty --description or --framework clears it (a cleared framework is filled by the next scan).`,
  tag: `Usage
    $ projdex tag PROJECT                 print its tags
    $ projdex tag PROJECT add TAG...      add tags
    $ projdex tag PROJECT rm TAG...       remove tags`,
  set: `Usage
    $ projdex set KEY VALUE [--json]

  Keys projdex reads: watch (on or off: rescan projects when their files change). Any other key is
  stored as given, for your own tools.`,
  get: `Usage
    $ projdex get [KEY] [--json]`,
  open: `Usage
    $ projdex open [PROJECT]

  Opens the dashboard of the server that runs for the data dir in a browser when run on a terminal with
  a display; otherwise prints its URL.`,
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

  Starts a package.json script, Procfile process, Makefile target or compose service (default: dev,
  else start, else the Procfile's web; compose:SERVICE runs \`docker compose -f FILE up --timeout 3
  SERVICE\`) in the project's directory, in its own process group, prints the URL of each port the
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
  return (`\n  ${COMMAND_HELP[command]}\n\n  Options shared by every command: `
    + '--data-dir DIR, --token T, --token-file FILE, --json, --help. See `projdex --help`.\n').slice(1);
}

/** The package version, read from package.json beside dist/ (or src/). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
