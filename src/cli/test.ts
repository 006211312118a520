/**
 * `projdex test [ID|DIR|NAME] [FILE...] [--failed] [--json]`: starts a run of a project's own tests,
 * streams its output from the event stream, and ends with a per-file summary (failed files first).
 * Exit 0 when the run passed, 1 otherwise, 130 on Ctrl-C (which cancels the run).
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import type { RunRecord } from '../core/runs/types.ts';
import type { Project } from '../core/types.ts';
import { CliError, type Client } from './client.ts';
import type { CliIo, Values } from './types.ts';

interface Out { readonly io: CliIo; readonly values: Values }

/** The project a word names: an id, a registered directory (or one inside it), or a project's name. */
async function projectOf(client: Client, word: string): Promise<Project> {
  if (/^\d+$/.test(word)) return (await client.request('GET', `/api/projects/${word}`)).body as Project;
  const projects = (await client.request('GET', '/api/projects')).body as Project[];
  if (existsSync(word)) {
    const path = realpathSync(resolve(word));
    const found = projects
      .filter((p) => path === p.path || path.startsWith(p.path + sep))
      .sort((a, b) => b.path.length - a.path.length)[0];
    if (!found) throw new CliError(`${path} is not in a registered project; add it with \`projdex add DIR\``);
    return found;
  }
  const named = projects.filter((p) => p.name === word);
  if (named.length === 1) return named[0]!;
  if (named.length > 1) {
    throw new CliError(`${named.length} projects are named ${word}; `
      + `give its id: ${named.map((p) => `#${p.id}`).join(', ')}`);
  }
  throw new CliError(`${word} is neither a project id, a directory nor a project's name`);
}

export async function test(client: Client, out: Out, positionals: string[]): Promise<number> {
  const { io, values } = out;
  // `projdex test FILE...` inside a project: the first word is a file, so the project is the one holding it.
  const first = positionals[0];
  const firstIsFile = first !== undefined && existsSync(first) && statSync(first).isFile();
  const project = await projectOf(client, firstIsFile || first === undefined ? '.' : first);
  const files = (firstIsFile ? positionals : positionals.slice(1)).map((f) => {
    const abs = existsSync(f) ? realpathSync(resolve(f)) : resolve(f);
    return abs.startsWith(project.path + sep) ? relative(project.path, abs).split(sep).join('/') : f;
  });
  if (values.failed && files.length > 0) throw new CliError('Give files or --failed, not both', 2);
  const body = values.failed ? { failed: true } : files.length > 0 ? { files } : undefined;

  const stream = values.json ? undefined : await openEvents(client);
  let run: RunRecord;
  try {
    run = (await client.request('POST', `/api/projects/${project.id}/runs`, body)).body as RunRecord;
  } catch (error) {
    stream?.close();
    throw error;
  }
  if (!values.json) {
    io.stderr.write(`run #${run.id} of #${project.id} ${project.name}`
      + `${run.status === 'queued' ? ' (queued: another run is in progress)' : ''}\n`);
  }
  let interrupted = false;
  const onSigint = (): void => {
    interrupted = true;
    io.stderr.write('\ncanceling the run ...\n');
    void client.request('DELETE', `/api/runs/${run.id}`, undefined, [409]).catch(() => {});
  };
  io.once('SIGINT', onSigint);
  stream?.follow(run.id, (text) => io.stdout.write(text));
  // The events give the output; the run's end is read from its record, so a lost event cannot hang here.
  for (;;) {
    const current = (await client.request('GET', `/api/runs/${run.id}`)).body as RunRecord;
    if (current.status !== 'running' && current.status !== 'queued') { run = current; break; }
    await (stream ? stream.finished(run.id, 1000) : new Promise((r) => setTimeout(r, 500)));
  }
  stream?.close();
  if (interrupted) {
    io.stderr.write(`run #${run.id} ${run.status}\n`);
    return 130;
  }
  if (values.json) io.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
  else io.stdout.write(summary(run));
  return run.status === 'passed' ? 0 : 1;
}

/** Failed files first (with the first line of each failure), then passed and skipped; then the notes. */
export function summary(run: RunRecord): string {
  const order = { failed: 0, passed: 1, skipped: 2 } as const;
  const files = [...run.files]
    .sort((a, b) => order[a.status] - order[b.status] || a.file_path.localeCompare(b.file_path));
  const lines = ['', '--- summary ---'];
  for (const f of files) {
    lines.push(`${f.status === 'failed' ? '✗ FAIL' : f.status === 'passed' ? '✓ pass' : '- skip'}  `
      + `${f.file_path}${f.duration_ms === null ? '' : `  (${f.duration_ms} ms)`}`);
    for (const failure of f.failures) {
      lines.push(`          ${failure.name}: ${failure.message.split('\n')[0]}`);
    }
  }
  for (const step of run.steps) {
    for (const note of step.notes) lines.push(`note: ${step.package ? `${step.package}: ` : ''}${note}`);
  }
  const { passed, failed, skipped } = run.counts;
  lines.push(`${run.files.length} file${run.files.length === 1 ? '' : 's'}: `
    + `${failed} failed, ${passed} passed, ${skipped} skipped`
    + ` -- run #${run.id} ${run.status}${run.reason ? ` (${run.reason})` : ''}`
    + `${run.exit_code ? `, exit code ${run.exit_code}` : ''}`);
  return `${lines.join('\n')}\n`;
}

/** `/api/events`, read with fetch (it carries the token header), ready once the server sent `ready`. */
async function openEvents(client: Client) {
  const controller = new AbortController();
  const res = await fetch(`${client.url}/api/events`, {
    headers: { ...client.headers, accept: 'text/event-stream' },
    signal: controller.signal,
  })
    .catch(() => undefined);
  if (!res?.ok || !res.body) return undefined;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const pending: Array<{ event: string; data: any }> = [];
  let onEvent: ((e: { event: string; data: any }) => void) | undefined;
  const waiters = new Set<() => void>();
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => { ready = resolve; });
  void (async () => {
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) break;
      buffer += value;
      let at: number;
      while ((at = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event === 'ready') ready();
        if (!event.startsWith('run.') || data === undefined) continue;
        const parsed = { event, data: JSON.parse(data) };
        if (onEvent) onEvent(parsed); else pending.push(parsed);
        if (event === 'run.finished') for (const wake of waiters) wake();
      }
    }
    ready();
    for (const wake of waiters) wake();
  })();
  await Promise.race([isReady, new Promise((r) => setTimeout(r, 5000))]);
  return {
    follow(id: number, write: (text: string) => void): void {
      onEvent = (e) => { if (e.data.id === id && e.event === 'run.output') write(String(e.data.text)); };
      for (const e of pending.splice(0)) onEvent(e);
    },
    finished(_id: number, ms: number): Promise<void> {
      return new Promise((resolve) => {
        const wake = (): void => { waiters.delete(wake); clearTimeout(timer); resolve(); };
        const timer = setTimeout(wake, ms);
        waiters.add(wake);
      });
    },
    close: () => controller.abort(),
  };
}
