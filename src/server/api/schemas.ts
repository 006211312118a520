// JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of every body projdex sends or reads. Each field says
// what it means and its unit; docs/api.md is rendered from these, so the two cannot drift.

export type Schema = Readonly<Record<string, unknown>>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const int = (description: string, extra: Record<string, unknown> = {}): Schema =>
  ({ type: 'integer', description, ...extra });
const str = (description: string): Schema => ({ type: 'string', description });
const nullable = (type: string, description: string): Schema => ({ type: [type, 'null'], description });
const seconds = (what: string): Schema =>
  int(`${what}, in Unix seconds (whole seconds since 1970-01-01 UTC).`, { minimum: 0 });
const object = (
  properties: Record<string, Schema>,
  description: string,
  required = Object.keys(properties),
): Schema => ({ type: 'object', description, properties, required, additionalProperties: false });

const RUN_FIELDS: Record<string, Schema> = {
    id: int('Identifier of the run.', { minimum: 1 }),
    project_id: int('The project whose tests ran.', { minimum: 1 }),
    status: {
      type: 'string',
      enum: ['queued', 'running', 'passed', 'failed', 'error', 'canceled'],
      description: '`queued` while other runs hold every slot (setting `run_concurrency`), `running`, then '
        + '`passed` (every step exited 0 and no file failed), `failed`, `error` (a step could not start, the '
        + 'deadline passed, the server stopped) or `canceled`.',
    },
    started_at: seconds('When it was requested, then when it started'),
    finished_at: { type: ['integer', 'null'], description:
      'When it ended, in Unix seconds; null while queued or running.' },
    exit_code: { type: ['integer', 'null'], description:
      'The first non-zero exit code of its steps, 0 if all exited 0; null while running or when it was '
      + 'stopped.' },
    counts: object({
      passed: int('Files that passed.', { minimum: 0 }),
      failed: int('Files with a failing test.', { minimum: 0 }),
      skipped: int('Files whose tests were all skipped.', { minimum: 0 }),
    }, 'Files per status, as reported.'),
    files: { type: 'array', items: ref('RunFile'), description:
      'Per test file the runners reported, by path. Steps without a per-file report add none (see '
      + '`steps[].notes`).' },
    steps: { type: 'array', items: ref('RunStep'), description: 'Each test command run, in order.' },
    output: str('The last 1 MiB of the combined stdout and stderr of every step (starting at a line when '
      + 'cut); while the run runs, the output so far, as are `files` and `steps`.'),
    reason: nullable('string', 'Why it ended `error` or `canceled`; null otherwise.'),
  };

const LAST_RUN = object({
    id: int('The run (`GET /api/runs/:id`).', { minimum: 1 }),
    status: { type: 'string', enum: ['passed', 'failed', 'error', 'canceled'], description: 'How it ended.' },
    finished_at: { type: ['integer', 'null'], description: 'When it ended, in Unix seconds.' },
  }, 'A project\'s newest finished run, in brief.');
const gitState = object({
  branch: nullable('string', 'The checked-out branch; null on a detached HEAD.'),
  head: nullable('string', 'The full hash of the commit HEAD names; null in a repository without commits.'),
  dirty: { type: 'boolean', description:
    'True when a tracked file differs from HEAD or an untracked (not ignored) file exists.' },
  ahead: nullable('integer', 'Commits on the branch that its upstream lacks; null without an upstream.'),
  behind: nullable('integer', 'Commits on the upstream that the branch lacks; null without an upstream.'),
  last_commit_at: { type: ['integer', 'null'], description:
    'When HEAD\'s commit was made (committer date), in Unix seconds; null without commits.' },
}, 'What `git status` and `git log` say about the working tree holding the project.');

/** The document of GET /api/export and POST /api/import. */
const registryExport = object({
  format: { type: 'string', enum: ['projdex-registry'], description: 'Names the format.' },
  version: { type: 'integer', enum: [1], description: 'Format version.' },
  exported_at: seconds('When it was exported'),
  projects: {
    type: 'array',
    description: 'The projects, by id (import: at most 10,000).',
    items: object({
      name: str('Display name, non-empty.'),
      path: str('Absolute path of the directory on the exporting machine.'),
      description: nullable('string', 'As in Project.'),
      framework: nullable('string', 'As in Project.'),
      tags: { type: 'array', items: { type: 'string' }, description: 'As in Project.' },
    }, 'One project (import: `description`, `framework` and `tags` may be absent).', ['name', 'path']),
  },
  settings: { type: 'object', additionalProperties: { type: 'string' }, description:
    'Every setting: key -> value (import: may be absent).' },
}, 'A registry you can carry to another data dir or machine.', ['format', 'version', 'projects', 'settings']);

const processFields = {
  id: int('Identifier of the started script.', { minimum: 1 }),
  project_id: int('Its project.', { minimum: 1 }),
  script: str('The script, Procfile process, Makefile target or compose service (`compose:SERVICE`).'),
  command: str('What runs: the script\'s text, or `make TARGET`.'),
  pid: nullable('integer', 'The process (and process group) id; null when it could not start.'),
  status: { type: 'string', enum: ['running', 'exited', 'failed', 'stopped'], description:
    '`exited`: ended with code 0 (or gone, code unknown: see `note`); `failed`: could not start, ended '
    + 'with another code or by a signal it was not sent by projdex; `stopped`: stopped by DELETE or with '
    + 'the server.' },
  started_at: seconds('When it was started'),
  exit_code: nullable('integer',
    'Its exit code once ended; null while running, when stopped by a signal, or when unknown.'),
  ports: { type: 'array', items: { type: 'integer' }, description:
    'The ports the script declares (from the last scan).' },
  keep: { type: 'boolean', description: 'True when it outlives the server that started it.' },
  note: nullable('string',
    'Why it failed to start, the signal that ended it, or that its exit code is unknown.'),
  ended_at: { type: ['integer', 'null'], description: 'When it ended, in Unix seconds; null while running.' },
};

export const SCHEMAS: Readonly<Record<string, Schema>> = {
  Project: object({
    id: int('Identifier, positive; never reused after a delete.', { minimum: 1 }),
    name: str('Display name, non-empty.'),
    path: str(
      'Absolute real path of the project\'s directory (symlinks resolved, no trailing slash); unique.'),
    description: nullable('string', 'Free text; null until set.'),
    framework: nullable('string',
      'Main stack (e.g. `next`, `vite`, `django`, `go`): set by PUT, or filled by a scan while still null.'),
    tags: { type: 'array', items: { type: 'string' }, description:
      'Labels without duplicates, in the order given; `[]` until set.' },
    last_scanned: { ...seconds('When the last scan finished'), type: ['integer', 'null'], description:
      'When the last scan finished, in Unix seconds; null if never scanned.' },
    created_at: seconds('When the project was registered'),
    last_run: { ...LAST_RUN, type: ['object', 'null'], description:
      'The newest finished test run (`POST /api/projects/:id/runs`): its `id`, `status` (`passed`, '
      + '`failed`, `error`, `canceled`) and `finished_at` (Unix seconds); null if never run.' },
    git: {
      ...gitState,
      type: ['object', 'null'],
      description:
        'The git state the last scan read; null before the first scan, and where there is no repository '
        + 'or no git (`git_note` says which).',
    },
    git_note: nullable('string',
      'Why `git` is null after a scan, in words: no repository, no git executable, a repository git '
      + 'refuses (another owner) or one slower than the time budget; null otherwise.'),
  }, 'A registered project directory.'),
  GitState: gitState,
  Test: object({
    id: int('Identifier; stays the same across rescans while the file is still found.', { minimum: 1 }),
    project_id: int('The project the file belongs to.', { minimum: 1 }),
    file_path: str('POSIX path of the test file, relative to the project\'s path.'),
    framework: nullable('string',
      'The runner that would run the file: `jest`, `vitest`, `mocha`, `node-test`, `playwright`, '
      + '`cypress`, `ava`, `jasmine`, `pytest`, `unittest`, `go`, `cargo`, `rspec`, `minitest`, '
      + '`phpunit`, `junit`, `exunit`, ...'),
    status: { type: ['string', 'null'], enum: ['passed', 'failed', 'skipped', null], description:
      'The file\'s result in the newest run that reported it; null if no run reported it yet.' },
    last_run: nullable('integer', 'When that run finished, in Unix seconds; null if never run.'),
    cases: nullable('integer',
      'Static estimate of the test cases the file declares (a count of `test(`/`it(`/`def test_`... '
      + 'calls); null when not counted.'),
    created_at: seconds('When the file was first found'),
  }, 'One test file found by a scan, as the project\'s own test command would run it.'),
  ProjectPort: object({
    id: int('Identifier of this row.', { minimum: 1 }),
    project_id: int('The project whose files name the port.', { minimum: 1 }),
    port: int('TCP port number.', { minimum: 1, maximum: 65535 }),
    script_name: nullable('string',
      'The package.json script, compose service or Procfile process the port belongs to; null when none.'),
    config_source: str('File the port was read from, relative to the project '
      + '(e.g. `package.json`, `vite.config.ts`, `.env`).'),
    last_detected: seconds('When the last scan found it'),
    created_at: seconds('When the row was first written (kept across rescans while the port is still found)'),
    kind: {
      type: 'string', enum: ['listen', 'connect', 'container'],
      description:
        '`listen`: a process of the project binds it on the host (dev servers, published compose ports, '
        + '`PORT=`); '
        +
          '`connect`: a client setting pointing at another service (`DB_PORT`, `REDIS_PORT`, `*_URL`); '
          + '`container`: bound inside '
        +
          'a container that nothing publishes on the host (`EXPOSE 80`, compose `ports: ["80"]`), never a '
          + 'collision. '
        + 'See the README\'s ports rule.',
    },
  }, 'One port a project\'s scripts or config files name.'),
  Health: object({
    status: { type: 'string', enum: ['ok'], description: 'Always `ok` while the server runs.' },
    timestamp: { type: 'string', format: 'date-time', description:
      'Server time, ISO 8601 with milliseconds, UTC (unlike the records\' Unix seconds).' },
    proof: { type: 'string', description:
      'Only with an `X-Projdex-Challenge` header: proof that this server wrote server.json (base64url '
      + 'HMAC-SHA256 of the challenge keyed with its instance).' },
  }, 'Liveness answer.', ['status', 'timestamp']),
  Error: {
    type: 'object',
    description: 'Every error answer.',
    properties: {
      error: str('What went wrong, in one sentence; texts are listed per route.'),
      project: { ...ref('Project'), description:
        'Only on 409 `Project with this path already exists`: the project already holding the path.' },
    },
    required: ['error'],
    additionalProperties: false,
  },
  Settings: { type: 'object', additionalProperties: { type: 'string' }, description:
    'Every setting: key -> value, both strings.' },
  Setting: object({
    key: str('The setting\'s name (from the path, percent-decoded).'),
    value: str('Its value, always a string.'),
  }, 'One setting.'),
  KnownSetting: object({
    key: str('A key projdex itself reads.'),
    description: str('What it does.'),
    values: str('The values projdex can use, as shown to users.'),
  }, 'A setting projdex reads; PUT refuses a value it cannot use (400).'),
  RunInfo: {
    type: 'object',
    description: 'What discovery followed for one package of the project.',
    properties: {
      package: str('The package directory, relative to the project (`\'\'` for its root).'),
      command: nullable('string',
        'The test command followed (e.g. the `test` script\'s text); null when none was named.'),
      runner: nullable('string',
        'The runner it reaches (a Test `framework` value); null when projdex could not tell.'),
      config: nullable('string', 'The runner config file read, relative to the project; null when none.'),
      notes: { type: 'array', items: { type: 'string' }, description:
        'Assumptions and unknowns for this package, in words.' },
    },
    required: ['package', 'command', 'runner', 'config', 'notes'],
    additionalProperties: false,
  },
  ScanAnswer: object({
    project: { ...ref('Project'), description: 'The project as stored after the scan.' },
    testsFound: int('How many test files the scan stored (the length of `tests`).', { minimum: 0 }),
    tests: { type: 'array', items: ref('Test'), description: 'The project\'s test files, by `file_path`.' },
    ports: { type: 'array', items: ref('ProjectPort'), description:
      'The project\'s ports, by port then script name.' },
    notes: { type: 'array', items: { type: 'string' }, description:
      'What the scan could not read exactly (a computed config, an unknown runner...): never silent.' },
    runs: { type: 'array', items: ref('RunInfo'), description: 'Per package, what discovery followed.' },
    truncated: nullable('string',
      'Why the walk stopped early (a limit was reached), or null when it saw the whole tree.'),
  }, 'The answer to a scan.'),
  ScanAllEntry: object({
    project: ref('Project'),
    testsFound: int('Test files stored; 0 when the scan failed.', { minimum: 0 }),
    tests: { type: 'array', items: ref('Test'), description: 'As in a scan answer; `[]` when it failed.' },
    ports: { type: 'array', items: ref('ProjectPort'), description:
      'As in a scan answer; `[]` when it failed.' },
    notes: { type: 'array', items: { type: 'string' }, description: 'As in a scan answer.' },
    runs: { type: 'array', items: ref('RunInfo'), description: 'As in a scan answer.' },
    truncated: nullable('string', 'As in a scan answer.'),
    error: nullable('string', 'Why this project\'s scan failed (e.g. its directory is gone), or null.'),
  }, 'One project\'s part of `scan/all`: the same keys whether it succeeded or failed.'),
  DiscoverAnswer: object({
    added: { type: 'array', items: ref('Project'), description:
      'Roots registered by this request, by path.' },
    existing: { type: 'array', items: ref('Project'), description:
      'Roots found that were already registered.' },
    truncated: { type: 'boolean', description:
      'True when the search stopped at its budget of 20,000 directories.' },
  }, 'What folder discovery found.'),
  Overview: object({
    project_id: int('The project.', { minimum: 1 }),
    tests: int('Test files stored for it.', { minimum: 0 }),
    cases: int('Sum of their `cases` (files without a count add 0).', { minimum: 0 }),
    runners: { type: 'object', additionalProperties: { type: 'integer' }, description:
      'Test files per runner (`framework`; `unknown` for null).' },
    ports: { type: 'array', items: { type: 'integer' }, description: 'Distinct listen ports, ascending.' },
  }, 'One project\'s line in the dashboard\'s table.'),
  ScanSummary: object({
    notes: { type: 'array', items: { type: 'string' }, description: 'As in the scan answer.' },
    runs: { type: 'array', items: ref('RunInfo'), description: 'As in the scan answer.' },
    truncated: nullable('string', 'As in the scan answer.'),
    scanned_at: { type: ['integer', 'null'], description:
      'When that scan was saved, in Unix seconds; null before the first scan.' },
  }, 'The last scan\'s remarks on a project.'),
  PortGroup: object({
    port: int('TCP port number.', { minimum: 1, maximum: 65535 }),
    conflict: { type: 'boolean', description: 'True when more than one project listens on the port.' },
    projects: {
      type: 'array',
      description: 'Every project that listens on the port, by project id.',
      items: object({
        project_id: int('The claiming project.', { minimum: 1 }),
        name: str('Its name.'),
        scripts: { type: 'array', items: { type: 'string' }, description:
          'Scripts, compose services or processes naming the port, sorted, unique.' },
        sources: { type: 'array', items: { type: 'string' }, description:
          'Files the port was read from (as ProjectPort.config_source), sorted, unique.' },
      }, 'One project\'s claim on the port.'),
    },
    live: {
      type: ['object', 'null'],
      description:
        'Only with `?live=1`: the process listening on the port now, or null when none is (or when '
        + '`live_note` says it cannot be told).',
      properties: {
        pid: nullable('integer',
          'Its process id; null when it belongs to a process this user cannot inspect.'),
        command: nullable('string',
          'Its command line (arguments joined by spaces, at most 4 KiB; on macOS the command name); null '
          + 'when unknown.'),
        project_id: nullable('integer',
          'The registered project its working directory is in (the deepest one); null when none.'),
      },
      required: ['pid', 'command', 'project_id'],
      additionalProperties: false,
    },
    live_note: nullable('string',
      'Only with `?live=1`: why `live` is null or its holder unknown (no way to list sockets on this '
      + 'platform, another user\'s process); else null.'),
  }, 'A port and every project that names it.', ['port', 'conflict', 'projects']),
  LiveSockets: object({
    available: { type: 'boolean', description:
      'False when this platform gives no way to list sockets (Windows; elsewhere than Linux without lsof; '
      + 'no readable /proc): `sockets` is empty and `notes` say why.' },
    sockets: {
      type: 'array',
      description: 'Every TCP socket listening now, by port.',
      items: object({
        port: int('TCP port number.', { minimum: 1, maximum: 65535 }),
        address: str('The local address it is bound to (`0.0.0.0`, `::`, `127.0.0.1`; `*` from lsof).'),
        pid: nullable('integer', 'The holder; null when this user cannot inspect it.'),
        command: nullable('string', 'The holder\'s command line (Linux) or name (lsof); null when unknown.'),
        cwd: nullable('string', 'The holder\'s working directory; null when unknown.'),
        project_id: nullable('integer',
          'The registered project that directory is in (the deepest one); null when none.'),
      }, 'One listening socket.'),
    },
    notes: { type: 'array', items: { type: 'string' }, description:
      'What was left out or could not be told.' },
  }, 'The machine\'s listening TCP sockets and their holders.'),
  RegistryExport: registryExport,
  Process: object(processFields, 'A script started in the background.'),
  ProcessDetail: object({
    ...processFields,
    output: str('The last 1 MiB of its stdout and stderr (one log), from a line start when cut.'),
  }, 'A started script with its output.'),
  PortHeld: object({
    error: str('Which port is held, by what, and how to go on.'),
    holder: object({
      port: int('The held port.', { minimum: 1, maximum: 65535 }),
      pid: nullable('integer', 'The holder; null when this user cannot inspect it.'),
      command: nullable('string', 'Its command line; null when unknown.'),
      project_id: nullable('integer', 'The registered project it runs in; null when none.'),
    }, 'The process holding the port.'),
  }, 'The 409 of a start whose port is taken.'),
  ImportAnswer: object({
    added: { type: 'array', items: ref('Project'), description: 'Projects registered by the import.' },
    updated: { type: 'array', items: ref('Project'), description:
      'Projects already registered at the same real path, with the imported fields set.' },
    missing: {
      type: 'array',
      description: 'Imported projects whose path is not a directory here: not registered.',
      items: object({
        name: str('As imported.'),
        path: str('As imported.'),
        error: str('Why, e.g. `Path does not exist`.'),
      }, 'One path left out.'),
    },
    settings: int('Settings written.', { minimum: 0 }),
  }, 'What an import did.'),
  Run: object(RUN_FIELDS, 'One run of a project\'s own tests.'),
  RunFile: object({
    file_path: str('The test file, relative to the project (as Test.file_path).'),
    status: { type: 'string', enum: ['passed', 'failed', 'skipped'], description:
      'Failed if any of its tests failed, passed if any passed, else skipped.' },
    duration_ms: { type: ['integer', 'null'], description:
      'Sum of its tests\' durations in milliseconds, as the runner measured them; null when it gave none.' },
    failures: {
      type: 'array', description:
        'Its failing tests (at most 20), with the runner\'s message (ANSI escapes removed, at most 2000 '
        + 'characters).',
      items: object({
        name: str('The test\'s name, as the runner gave it.'),
        message: str('The failure message.'),
      }, 'One failing test.'),
    },
  }, 'One test file\'s result in a run.'),
  RunStep: object({
    package: str('The package directory, relative to the project (`\'\'` for its root); the step ran there.'),
    command: str('The command as run, with projdex\'s reporter flags.'),
    runner: nullable('string', 'The runner (a Test `framework` value), or null when unknown.'),
    exit_code: { type: ['integer', 'null'], description:
      'Its exit code; null when a signal ended it or it could not start.' },
    notes: { type: 'array', items: { type: 'string' }, description:
      'Why no per-file result was read, a missing program, a signal: never silent.' },
  }, 'One test command of a run.'),
  RunListed: { type: 'object', description:
    'A run as a page lists it: every field of Run but `output` (read one run for it).',
    properties: Object.fromEntries(Object.entries(RUN_FIELDS).filter(([k]) => k !== 'output')),
    required: Object.keys(RUN_FIELDS).filter((k) => k !== 'output'), additionalProperties: false },
  RunPage: object({
    runs: { type: 'array', items: ref('RunListed'), description: 'Newest first.' },
    total: int('Runs the project has.', { minimum: 0 }),
    next: { type: ['integer', 'null'], description:
      'Pass as `before` for the next page; null on the last one.' },
  }, 'A page of a project\'s runs.'),
};


/** Request bodies. */
export const BODIES: Readonly<Record<string, Schema>> = {
  RegistryExport: registryExport,
  ProcessStart: {
    type: 'object',
    description: 'What to start; every field may be absent.',
    properties: {
      script: str(
        'A package.json script, Procfile process, Makefile target or compose service (`compose:SERVICE`); '
        + 'absent: `dev`, else `start`, else the Procfile\'s `web`.'),
      keep: { type: 'boolean', default: false, description:
        'Keep it running when the server stops; a restarted server finds it again.' },
      force: { type: 'boolean', default: false, description:
        'Start even when a port the script declares is held now.' },
    },
  },
  ProjectInput: object({
    name: str('Display name, non-empty.'),
    path: str('Absolute path of an existing directory (`~/` expands to the home directory); '
      + 'stored as its real path.'),
  }, 'A project to register; other fields are ignored.'),
  ProjectUpdate: {
    type: 'object',
    description: 'Only the fields given change; at least one is required; others are ignored.',
    properties: {
      name: str('Non-empty.'),
      description: nullable('string', 'Free text, or null to clear.'),
      framework: nullable('string', 'Main stack, or null to clear.'),
      tags: { type: 'array', items: { type: 'string' }, description:
        'Replaces the tags; duplicates dropped, order kept.' },
    },
  },
  SettingInput: {
    type: 'object',
    description: 'The value to store.',
    properties: { value: { type: ['string', 'number', 'boolean'], description:
      'Required; a number or boolean is stored as its string form.' } },
    required: ['value'],
  },
  RunInput: {
    type: 'object',
    description: 'Optional: without a body every test command runs whole.',
    properties: {
      files: { type: 'array', items: { type: 'string' }, description:
        'Only these test files (as Test.file_path); a runner that cannot take single files runs its whole '
        + 'command.' },
      failed: { type: 'boolean', description: '`true`: only the files whose last status is `failed`.' },
    },
  },
  DiscoverInput: {
    type: 'object',
    description: 'Where to look.',
    properties: {
      root: str('Absolute path of the folder to search (`~/` expands).'),
      depth: int(
        'Folder levels below `root` to search (0: `root` only).', { minimum: 0, maximum: 16, default: 4 }),
    },
    required: ['root'],
  },
};
