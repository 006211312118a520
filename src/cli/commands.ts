import { realpathSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { LivePortClaim } from '../server/api/live-ports.ts';
import type { Project, ProjectPort, Test } from '../core/types.ts';
import { CliError, type Client } from './client.ts';
import type { CliIo, Values } from './types.ts';

interface Out { readonly io: CliIo; readonly values: Values }

const print = ({ io }: Out, line = ''): void => { io.stdout.write(`${line}\n`); };
const json = ({ io }: Out, value: unknown): void => { io.stdout.write(`${JSON.stringify(value, null, 2)}\n`); };

/** Columns padded to their widest cell; the last column is not padded. */
export function table(rows: ReadonlyArray<ReadonlyArray<string>>): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** A project named by id (digits) or by a directory registered as one. */
export async function findProject(client: Client, ref: string | undefined): Promise<Project> {
  const arg = ref ?? '.';
  if (/^\d+$/.test(arg)) return (await client.request('GET', `/api/projects/${arg}`)).body as Project;
  let path: string;
  try {
    path = realpathSync(resolve(arg));
  } catch {
    throw new CliError(`${arg} is neither a project id nor an existing directory`);
  }
  const projects = (await client.request('GET', '/api/projects')).body as Project[];
  const found = projects.find((p) => p.path === path);
  if (!found) throw new CliError(`${path} is not registered; add it with \`projdex add ${arg}\``);
  return found;
}

export async function add(client: Client, out: Out, positionals: string[]): Promise<number> {
  const { values } = out;
  if (values.all) {
    const root = positionals[0];
    if (!root) throw new CliError('add --all needs a folder: projdex add --all DIR', 2);
    if (values.depth !== undefined && !/^\d{1,2}$/.test(values.depth)) throw new CliError(`--depth must be an integer from 0 to 99, got "${values.depth}"`, 2);
    const body = { root: resolve(root), ...(values.depth === undefined ? {} : { depth: Number(values.depth) }) };
    const found = (await client.request('POST', '/api/projects/discover', body)).body as { added: Project[]; existing: Project[] };
    if (values.json) return json(out, found), 0;
    for (const p of found.added) print(out, `added #${p.id} ${p.name}  ${p.path}`);
    print(out, `${found.added.length} added, ${found.existing.length} already registered`);
    return 0;
  }
  const path = resolve(positionals[0] ?? '.');
  const name = values.name ?? basename(path);
  const answer = await client.request('POST', '/api/projects', { name, path }, [409]);
  const project = (answer.status === 409 ? answer.body.project : answer.body) as Project;
  if (values.json) return json(out, { added: answer.status === 201, project }), 0;
  print(out, `${answer.status === 201 ? 'added' : 'already registered:'} #${project.id} ${project.name}  ${project.path}`);
  return 0;
}

export async function ls(client: Client, out: Out): Promise<number> {
  const { tag, framework, search } = out.values;
  const query = new URLSearchParams({ ...(tag ? { tag } : {}), ...(framework ? { framework } : {}), ...(search ? { q: search } : {}) }).toString();
  const projects = (await client.request('GET', `/api/projects${query ? `?${query}` : ''}`)).body as Project[];
  if (out.values.json) return json(out, projects), 0;
  if (projects.length === 0) {
    print(out, query ? 'no project matches' : 'no projects yet; register one with `projdex add DIR` or many with `projdex add --all DIR`');
    return 0;
  }
  const when = (s: number | null): string => (s === null ? 'never' : new Date(s * 1000).toISOString().slice(0, 16).replace('T', ' '));
  print(out, table([['ID', 'NAME', 'FRAMEWORK', 'TAGS', 'SCANNED', 'GIT', 'PATH'],
    ...projects.map((p) => [String(p.id), p.name, p.framework ?? '-', p.tags.join(',') || '-', when(p.last_scanned), gitCell(p.git), p.path])]));
  return 0;
}

/** `main*` (dirty), `+1 -2` against the upstream, `@abc1234` on a detached HEAD; `-` without git state. */
function gitCell(git: Project['git']): string {
  if (!git) return '-';
  const name = git.branch ?? (git.head ? `@${git.head.slice(0, 7)}` : '(no commits)');
  const distance = git.ahead === null ? '' : ` +${git.ahead} -${git.behind}`;
  return `${name}${git.dirty ? '*' : ''}${distance}`;
}

interface ScanAnswer {
  project: Project; testsFound: number; tests: Test[]; ports: ProjectPort[]; notes: string[]; runs: unknown[]; truncated: string | null; error?: string | null;
}

export async function scan(client: Client, out: Out, positionals: string[]): Promise<number> {
  const { io, values } = out;
  const targets = values.all ? (await client.request('GET', '/api/projects')).body as Project[] : [await findProject(client, positionals[0])];
  const progress = io.stderr.isTTY === true && !values.json;
  const answers: ScanAnswer[] = [];
  let failed = 0;
  for (const [i, project] of targets.entries()) {
    if (progress) io.stderr.write(`\r\x1b[Kscanning ${targets.length > 1 ? `${i + 1}/${targets.length} ` : ''}${project.name} ...`);
    const answer = await client.request('POST', `/api/projects/${project.id}/scan${values.full ? '?full=1' : ''}`, undefined, values.all ? [404, 409, 500] : []);
    if (answer.status >= 400) {
      failed++;
      // The same keys as a successful entry, as in POST /api/projects/scan/all.
      answers.push({ project, testsFound: 0, tests: [], ports: [], notes: [], runs: [], truncated: null, error: answer.body?.error ?? `HTTP ${answer.status}` });
    } else {
      answers.push(values.all ? { ...answer.body, error: null } : answer.body);
    }
  }
  if (progress) io.stderr.write('\r\x1b[K');
  if (values.json) return json(out, values.all ? answers : answers[0]), failed > 0 ? 1 : 0;
  for (const a of answers) {
    if (a.error) {
      print(out, `#${a.project.id} ${a.project.name}: FAILED: ${a.error}`);
      continue;
    }
    print(out, `#${a.project.id} ${a.project.name}: ${a.testsFound} test file${a.testsFound === 1 ? '' : 's'}, ${a.ports.length} port${a.ports.length === 1 ? '' : 's'}`
      + `${a.project.framework ? ` (${a.project.framework})` : ''}`);
    for (const note of a.notes) print(out, `  note: ${note}`);
    if (a.truncated) print(out, `  incomplete: ${a.truncated}`);
  }
  if (values.all) print(out, `${answers.length} project${answers.length === 1 ? '' : 's'} scanned${failed ? `, ${failed} failed` : ''}`);
  return failed > 0 ? 1 : 0;
}

export async function tests(client: Client, out: Out, positionals: string[]): Promise<number> {
  if (!positionals[0]) throw new CliError('tests needs a project: projdex tests ID|DIR', 2);
  const project = await findProject(client, positionals[0]);
  const list = (await client.request('GET', `/api/projects/${project.id}/tests`)).body as Test[];
  if (out.values.json) return json(out, list), 0;
  if (list.length === 0) {
    print(out, project.last_scanned === null ? `#${project.id} ${project.name} was never scanned; run \`projdex scan ${project.id}\`` : `#${project.id} ${project.name}: no test files`);
    return 0;
  }
  print(out, table([['FILE', 'FRAMEWORK', 'CASES'], ...list.map((t) => [t.file_path, t.framework ?? '-', t.cases === null ? '-' : String(t.cases)])]));
  print(out, `${list.length} test file${list.length === 1 ? '' : 's'} in #${project.id} ${project.name}`);
  return 0;
}

/** `pid 42 (this project)`, `pid 42 #3` (another project's process), `pid 42 other`, `held` (unknown holder), `-` (free). */
function liveCell(group: LivePortClaim, projectId: number): string {
  const holder = group.live;
  if (!holder) return '-';
  if (holder.pid === null) return 'held';
  const owner = holder.project_id === projectId ? '(this project)' : holder.project_id === null ? 'other' : `#${holder.project_id}`;
  return `pid ${holder.pid} ${owner}`;
}

/** Ports across projects (`GET /api/ports`), grouped by port; `conflict` when more than one project listens on it. */
export async function ports(client: Client, out: Out): Promise<number> {
  const query = new URLSearchParams({ ...(out.values.conflicts ? { conflicts: '1' } : {}), ...(out.values.live ? { live: '1' } : {}) }).toString();
  const groups = (await client.request('GET', `/api/ports${query ? `?${query}` : ''}`)).body as LivePortClaim[];
  if (out.values.json) return json(out, groups), 0;
  if (groups.length === 0) {
    print(out, out.values.conflicts ? 'no port is claimed by more than one project' : 'no ports found; scan projects with `projdex scan --all`');
    return 0;
  }
  const live = out.values.live === true;
  const rows = [['PORT', 'PROJECT', 'SCRIPT', ...(live ? ['LIVE'] : []), 'SOURCE']];
  for (const g of groups) {
    for (const c of g.projects) {
      rows.push([`${g.port}${g.conflict ? ' !' : ''}`, `#${c.project_id} ${c.name}`, c.scripts.join(', ') || '-',
        ...(live ? [liveCell(g, c.project_id)] : []), c.sources.join(', ')]);
    }
  }
  print(out, table(rows));
  const unknown = live ? groups.find((g) => g.live === null && g.live_note)?.live_note : undefined;
  if (unknown) print(out, `live: ${unknown}`);
  const shared = groups.filter((g) => g.conflict).length;
  if (shared > 0) print(out, `${shared} port${shared === 1 ? ' is' : 's are'} claimed by more than one project (marked !)`);
  return 0;
}
