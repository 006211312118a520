import type { ScanContext } from '../rules/types.ts';
import { parseYaml } from '../readers/yaml.ts';
import { dirname, joinPath } from '../rules/paths.ts';
import { isRecord, pick } from './common.ts';

/**
 * Which files are compose files, and the services they define with `extends:` followed. Compose files
 * carry any name a project gives them: `compose.yaml`, `docker-compose.prod.yml`, `compose-dev.yaml`,
 * `docker-compose-base.yaml`, and plain `*.yml` in a `docker/` or `compose/` folder (JHipster's
 * `src/main/docker/app.yml`, `deploy/compose/db.yaml`). A file counts only when its top-level `services`
 * is a map of service definitions (`image`, `build`, `ports`, `extends`, ...), so a CI file's `services:`
 * list or a Kubernetes manifest is not one.
 */

/** How many yaml files of docker/compose folders one scan reads looking for compose files. */
const MAX_FOLDER_FILES = 200;
/** How many `extends:` a service chain follows (a base of a base of a base). */
const MAX_EXTENDS = 3;
/** How many Tiltfiles are read for the compose files they load. */
const MAX_TILTFILES = 20;
const YAML = /\.ya?ml$/;
const FOLDERS = new Set(['docker', '.docker', 'compose', 'docker-compose']);
const SERVICE_KEYS = ['image', 'build', 'ports', 'extends', 'command', 'environment'];

/**
 * The walked files that may be compose files: named so, yaml in a docker/compose folder (capped), and the
 * files a Tiltfile's `docker_compose('deploy/dev.yml')` or `docker_compose(['a.yml', 'b.yml'])` loads.
 */
export async function composeCandidates(ctx: ScanContext): Promise<string[]> {
  const named = pick(ctx, (base) => YAML.test(base) && base.toLowerCase().includes('compose'));
  const seen = new Set(named);
  for (const tiltfile of pick(ctx, (b) => b === 'Tiltfile').slice(0, MAX_TILTFILES)) {
    const text = (await ctx.read(tiltfile))?.slice(0, 256 * 1024) ?? '';
    for (const m of text.matchAll(/\bdocker_compose\(\s*(\[[^\]]{0,1000}\]|'[^'\n]*'|"[^"\n]*")/g)) {
      for (const q of m[1]!.matchAll(/['"]([^'"\n]+)['"]/g)) {
        const file = inside(dirname(tiltfile), q[1]!);
        if (file !== undefined && ctx.has(file) && !seen.has(file)) { seen.add(file); named.push(file); }
      }
    }
  }
  const inFolder = pick(ctx, (base) => YAML.test(base), (path) => !seen.has(path) && inComposeFolder(path));
  if (inFolder.length > MAX_FOLDER_FILES) {
    ctx.note(`${inFolder.length} yaml files in docker/compose folders; `
      + `only the first ${MAX_FOLDER_FILES} were read for compose services`);
  }
  return [...named, ...inFolder.slice(0, MAX_FOLDER_FILES)];
}

function inComposeFolder(path: string): boolean {
  const parts = path.split('/');
  parts.pop();
  return parts.some((p) => FOLDERS.has(p.toLowerCase()));
}

/** The `services` map of a parsed compose document, or undefined when it is not one. */
export function composeServices(doc: unknown): Record<string, unknown> | undefined {
  if (!isRecord(doc) || !isRecord(doc.services)) return undefined;
  const services = doc.services;
  const looksLike = Object.values(services).some((s) => isRecord(s) && SERVICE_KEYS.some((k) => k in s));
  return looksLike ? services : undefined;
}

/** Reads and parses compose files once per scan, whoever asks (a file, or a service extending it). */
export type ComposeLoader = (file: string) => Promise<Record<string, unknown> | undefined>;

export function composeLoader(ctx: ScanContext): ComposeLoader {
  const cache = new Map<string, Promise<Record<string, unknown> | undefined>>();
  return (file) => {
    let doc = cache.get(file);
    if (!doc) {
      doc = (ctx.has(file) ? ctx.read(file) : Promise.resolve(undefined)).then((text) => {
        if (text === undefined) return undefined;
        try {
          return composeServices(parseYaml(text));
        } catch {
          return undefined;
        }
      });
      cache.set(file, doc);
    }
    return doc;
  };
}

/**
 * A service and the services it extends, own definition first: `extends: { file: base.yml, service: web }`
 * (relative to the file that says it) or `extends: web` in the same file. A base outside the project, a
 * missing one or a chain past MAX_EXTENDS is a note.
 */
export async function serviceChain(
  ctx: ScanContext, load: ComposeLoader, service: Record<string, unknown>, file: string,
): Promise<Array<Record<string, unknown>>> {
  const chain = [service];
  let current = service;
  let at = file;
  for (let depth = 0; current.extends !== undefined; depth++) {
    const ext = current.extends;
    const spec = typeof ext === 'string' ? { service: ext } : isRecord(ext) ? ext : {};
    const target = typeof spec.file === 'string' ? inside(dirname(at), spec.file) : at;
    const name = typeof spec.service === 'string' ? spec.service : undefined;
    if (depth >= MAX_EXTENDS || target === undefined || name === undefined) {
      const what = typeof spec.file === 'string' ? spec.file : 'another service';
      ctx.note(`A service in ${file} extends ${what} past what is followed; its base's ports were not read`);
      break;
    }
    const base = (await load(target))?.[name];
    if (!isRecord(base)) {
      ctx.note(`A service in ${file} extends "${name}" of ${target}, which was not found; its base's ports were not read`);
      break;
    }
    if (chain.includes(base)) break;
    chain.push(base);
    current = base;
    at = target;
  }
  return chain;
}

/** `rel` joined to `dir`, or undefined when absolute or climbing out of the project. */
function inside(dir: string, rel: string): string | undefined {
  if (rel.startsWith('/') || rel.startsWith('~') || rel.includes('$')) return undefined;
  let depth = dir === '' ? 0 : dir.split('/').length;
  for (const seg of rel.split('/')) {
    if (seg === '..') depth--;
    else if (seg !== '' && seg !== '.') depth++;
    if (depth < 0) return undefined;
  }
  return joinPath(dir, rel);
}
