/**
 * The environment a step runs with: the server's, minus projdex's own variables and what would change a
 * runner's behaviour behind the project's back, plus what keeps every runner non-interactive and plain.
 */
import { delimiter } from 'node:path';

/** Removed: projdex's settings and token, Node's test/IPC context, package-manager and CI-slicing variables. */
const DROPPED = /^(?:PROJDEX_.*|NODE_OPTIONS|NODE_TEST_CONTEXT|NODE_CHANNEL_FD|NODE_CHANNEL_SERIALIZATION_MODE|NODE_UNIQUE_ID|npm_.*|INIT_CWD|TAP|PYTEST_ADDOPTS|PYTEST_PLUGINS|SPEC_OPTS|CI_NODE_INDEX|CI_NODE_TOTAL|MIX_TEST_PARTITION|RUST_BACKTRACE|FORCE_COLOR)$/;

const ADDED = {
  CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0', TERM: 'dumb', PLAYWRIGHT_HTML_OPEN: 'never', GIT_TERMINAL_PROMPT: '0',
  PYTHONDONTWRITEBYTECODE: '1', CARGO_TERM_COLOR: 'never',
};

/**
 * @param base the server's environment
 * @param secrets values never passed on whatever their variable's name (the API token)
 * @param binDirs `node_modules/.bin` directories put first on PATH (the package's, then its parents')
 */
export function stepEnv(base: NodeJS.ProcessEnv, { secrets = [], binDirs = [] }: { secrets?: readonly string[]; binDirs?: readonly string[] } = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    if (value === undefined || DROPPED.test(key)) continue;
    if (secrets.some((s) => s !== '' && value.includes(s))) continue;
    env[key] = value;
  }
  Object.assign(env, ADDED);
  if (binDirs.length > 0) env.PATH = [...binDirs, env.PATH ?? ''].filter((p) => p !== '').join(delimiter);
  return env;
}
