import { existsSync } from 'node:fs';
import type { LivePortClaim } from '../server/api/live-ports.ts';
import type { PortClaim } from '../server/api/ports.ts';
import type { Project, ProjectPort, Test } from '../core/types.ts';
import { CliError, type Client } from './client.ts';
import { json, print, type Out } from './output.ts';
import { findProject } from './project-ref.ts';
import { followProgress } from './progress.ts';

/** Columns padded to their widest cell; the last column is not padded. */
export function table(rows: ReadonlyArray<ReadonlyArray<string>>): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '))
    .join('\n');
}

export async function ls(client: Client, out: Out): Promise<number> {
  const { tag, framework, search } = out.values;
  const query = new URLSearchParams({
    ...(tag ? { tag } : {}),
    ...(framework ? { framework } : {}),
    ...(search ? { q: search } : {}),
  }).toString();
  const projects = (await client.request('GET', `/api/projects${query ? `?${query}` : ''}`))
    .body as Project[];
  if (out.values.json) return json(out, projects), 0;
  if (projects.length === 0) {
    print(out, query
      ? 'no project matches'
      : 'no projects yet; register one with `projdex add DIR` or many with `projdex add --all DIR`');
    return 0;
  }
  const when = (s: number | null): string => (
    s === null ? 'never' : new Date(s * 1000).toISOString().slice(0, 16).replace('T', ' '));
  const counts = new Map((
    (await client.request('GET', '/api/projects/overview'))
      .body as Array<{ project_id: number; tests: number }>
  ).map((o) => [o.project_id, o.tests]));
  // The CLI runs beside the server (it found it through the data dir), so the directory is checked here.
  const gone = new Set(projects.filter((p) => !existsSync(p.path)).map((p) => p.id));
  // The last test run: ✓ passed, ✗ anything else (failed, error, canceled), and when.
  const lastRun = ({ last_run: r }: Project): string => (
    r ? `${r.status === 'passed' ? '✓' : '✗'} ${when(r.finished_at)}` : 'never');
  print(out, table([['ID', 'NAME', 'FRAMEWORK', 'TESTS', 'TAGS', 'SCANNED', 'LAST RUN', 'GIT', 'PATH'],
    ...projects.map((p) => [
      String(p.id), p.name, p.framework ?? '-',
      p.last_scanned === null ? '-' : String(counts.get(p.id) ?? 0),
      p.tags.join(',') || '-', when(p.last_scanned), lastRun(p), gitCell(p.git),
      `${p.path}${gone.has(p.id) ? '  (gone)' : ''}`,
    ])]));
  if (gone.size > 0) {
    print(out, `${gone.size} project director${gone.size === 1 ? 'y is' : 'ies are'} gone (marked); `
      + '`projdex rm ID` forgets a project');
  }
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
  project: Project; testsFound: number; tests: Test[]; ports: ProjectPort[]; notes: string[]; runs: unknown[];
  truncated: string | null; error?: string | null;
}

export async function scan(client: Client, out: Out, positionals: string[]): Promise<number> {
  const { io, values } = out;
  const targets = values.all
    ? (await client.request('GET', '/api/projects')).body as Project[]
    : [await findProject(client, positionals[0])];
  const progress = io.stderr.isTTY === true && !values.json;
  const answers: ScanAnswer[] = [];
  let failed = 0;
  let label = '';
  // On a terminal the line counts what the running scan has walked and found (the server's scan.progress).
  const unfollow = progress ? await followProgress(client, (p) => {
    if (label && targets[answers.length]?.id === p.id) {
      const count = (n: number, word: string): string =>
        `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
      io.stderr.write(`\r\x1b[K${label} ${count(p.files, 'file')}, ${count(p.tests, 'test')}`);
    }
  }) : () => {};
  for (const [i, project] of targets.entries()) {
    label = `scanning ${targets.length > 1 ? `${i + 1}/${targets.length} ` : ''}${project.name} ...`;
    if (progress) io.stderr.write(`\r\x1b[K${label}`);
    const answer = await client.request(
      'POST',
      `/api/projects/${project.id}/scan${values.full ? '?full=1' : ''}`,
      undefined,
      values.all ? [404, 409, 500] : [],
    );
    if (answer.status >= 400) {
      failed++;
      // The same keys as a successful entry, as in POST /api/projects/scan/all.
      answers.push({
        project, testsFound: 0, tests: [], ports: [], notes: [], runs: [], truncated: null,
        error: answer.body?.error ?? `HTTP ${answer.status}`,
      });
    } else {
      answers.push(values.all ? { ...answer.body, error: null } : answer.body);
    }
  }
  unfollow();
  label = '';
  if (progress) io.stderr.write('\r\x1b[K');
  if (values.json) return json(out, values.all ? answers : answers[0]), failed > 0 ? 1 : 0;
  for (const a of answers) {
    if (a.error) {
      print(out, `#${a.project.id} ${a.project.name}: FAILED: ${a.error}`);
      continue;
    }
    print(out, `#${a.project.id} ${a.project.name}: `
      + `${a.testsFound} test file${a.testsFound === 1 ? '' : 's'}, `
      + `${a.ports.length} port${a.ports.length === 1 ? '' : 's'}`
      + `${a.project.framework ? ` (${a.project.framework})` : ''}`);
    for (const note of a.notes) print(out, `  note: ${note}`);
    if (a.truncated) print(out, `  incomplete: ${a.truncated}`);
  }
  if (values.all) {
    print(out, `${answers.length} project${answers.length === 1 ? '' : 's'} scanned`
      + `${failed ? `, ${failed} failed` : ''}`);
  }
  return failed > 0 ? 1 : 0;
}

export async function tests(client: Client, out: Out, positionals: string[]): Promise<number> {
  if (!positionals[0]) throw new CliError('tests needs a project: projdex tests ID|DIR', 2);
  const project = await findProject(client, positionals[0]);
  const list = (await client.request('GET', `/api/projects/${project.id}/tests`)).body as Test[];
  if (out.values.json) return json(out, list), 0;
  if (list.length === 0) {
    print(out, project.last_scanned === null
      ? `#${project.id} ${project.name} was never scanned; run \`projdex scan ${project.id}\``
      : `#${project.id} ${project.name}: no test files`);
    return 0;
  }
  print(out, table([
    ['FILE', 'FRAMEWORK', 'CASES'],
    ...list.map((t) => [t.file_path, t.framework ?? '-', t.cases === null ? '-' : String(t.cases)]),
  ]));
  print(out, `${list.length} test file${list.length === 1 ? '' : 's'} in #${project.id} ${project.name}`);
  return 0;
}

/**
 * `pid 42 (this project)`, `pid 42 #3` (another project's process), `pid 42 other`, `held` (unknown
 * holder), `-` (free).
 */
function liveCell(group: LivePortClaim, projectId: number): string {
  const holder = group.live;
  if (!holder) return '-';
  if (holder.pid === null) return 'held';
  const owner = holder.project_id === projectId ? '(this project)'
    : holder.project_id === null ? 'other'
      : `#${holder.project_id}`;
  return `pid ${holder.pid} ${owner}`;
}

/**
 * Ports across projects (`GET /api/ports`), grouped by port; `conflict` when more than one project listens
 * on it.
 */
export async function ports(client: Client, out: Out): Promise<number> {
  const query = new URLSearchParams({
    ...(out.values.conflicts ? { conflicts: '1' } : {}),
    ...(out.values.live ? { live: '1' } : {}),
  }).toString();
  const groups = (await client.request('GET', `/api/ports${query ? `?${query}` : ''}`))
    .body as LivePortClaim[];
  if (out.values.json) return json(out, groups), 0;
  if (groups.length === 0) {
    const scanned = ((await client.request('GET', '/api/projects')).body as Project[])
      .filter((p) => p.last_scanned !== null).length;
    print(out, out.values.conflicts ? 'no port is claimed by more than one project'
      : scanned > 0 ? `no ports found in the ${scanned} scanned project${scanned === 1 ? '' : 's'}`
        : 'no ports found; scan projects with `projdex scan --all`');
    return 0;
  }
  const live = out.values.live === true;
  const rows = [['PORT', 'PROJECT', 'SCRIPT', ...(live ? ['LIVE'] : []), 'SOURCE']];
  for (const g of groups) {
    for (const c of g.projects) {
      rows.push([
        `${g.port}${g.conflict ? ' !' : ''}`, `#${c.project_id} ${c.name}`, c.scripts.join(', ') || '-',
        ...(live ? [liveCell(g, c.project_id)] : []), c.sources.join(', '),
      ]);
    }
  }
  print(out, table(rows));
  const unknown = live ? groups.find((g) => g.live === null && g.live_note)?.live_note : undefined;
  if (unknown) print(out, `live: ${unknown}`);
  const shared = groups.filter((g) => g.conflict).length;
  if (shared > 0) {
    print(out, `${shared} port${shared === 1 ? ' is' : 's are'} claimed by more than one project (marked !)`);
  }
  return 0;
}
