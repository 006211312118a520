import type { Project } from '../core/types.ts';
import { CliError, type Client } from './client.ts';
import { json, print, type Out } from './output.ts';
import { findProject } from './project-ref.ts';

const line = (p: Project): string => `#${p.id} ${p.name}  ${p.path}`;

/** `projdex rm REF...`: forgets projects (their tests and ports with them); their directories stay. */
export async function rm(client: Client, out: Out, refs: string[]): Promise<number> {
  if (refs.length === 0) throw new CliError('rm needs a project: projdex rm ID|NAME|DIR', 2);
  // Every name is resolved before anything is removed: a typo in the third leaves the first two in place.
  const projects: Project[] = [];
  for (const ref of refs) {
    const project = await findProject(client, ref);
    if (!projects.some((p) => p.id === project.id)) projects.push(project);
  }
  for (const p of projects) await client.request('DELETE', `/api/projects/${p.id}`);
  if (out.values.json) return json(out, { removed: projects }), 0;
  for (const p of projects) print(out, `removed ${line(p)}`);
  print(out, `(only the registry entry: the director${projects.length === 1 ? 'y is' : 'ies are'} `
    + 'untouched)');
  return 0;
}

/** `projdex edit REF --name N --description D --framework F`; an empty D or F clears the field. */
export async function edit(client: Client, out: Out, refs: string[]): Promise<number> {
  const { name, description, framework } = out.values;
  if (name === undefined && description === undefined && framework === undefined) {
    throw new CliError('edit needs at least one of --name, --description, --framework', 2);
  }
  if (!refs[0]) throw new CliError('edit needs a project: projdex edit ID|NAME|DIR --name N', 2);
  const project = await findProject(client, refs[0]);
  const body = {
    ...(name === undefined ? {} : { name }),
    ...(description === undefined ? {} : { description: description === '' ? null : description }),
    ...(framework === undefined ? {} : { framework: framework === '' ? null : framework }),
  };
  const updated = (await client.request('PUT', `/api/projects/${project.id}`, body)).body as Project;
  if (out.values.json) return json(out, updated), 0;
  print(out, `updated ${line(updated)}`);
  if (updated.description !== null) print(out, `  description: ${updated.description}`);
  print(out, `  framework: ${updated.framework ?? '- (the next scan fills it)'}`);
  return 0;
}

/** `projdex tag REF [add|rm TAG...]`: prints, adds or removes a project's tags. */
export async function tag(client: Client, out: Out, args: string[]): Promise<number> {
  const [ref, verb, ...tags] = args;
  if (!ref) throw new CliError('tag needs a project: projdex tag ID|NAME|DIR add|rm TAG...', 2);
  if (verb !== undefined && verb !== 'add' && verb !== 'rm') {
    throw new CliError(`tag takes add or rm, got "${verb}"`, 2);
  }
  if (verb !== undefined && tags.length === 0) throw new CliError(`tag ${verb} needs at least one tag`, 2);
  let project = await findProject(client, ref);
  if (verb !== undefined) {
    const next = verb === 'add' ? [...project.tags, ...tags] : project.tags.filter((t) => !tags.includes(t));
    project = (await client.request('PUT', `/api/projects/${project.id}`, { tags: next })).body as Project;
  }
  if (out.values.json) return json(out, project.tags), 0;
  print(out, `#${project.id} ${project.name}: ${project.tags.length ? project.tags.join(', ') : 'no tags'}`);
  return 0;
}
