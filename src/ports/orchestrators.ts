import type { ScanContext } from '../rules/types.ts';
import { parseYaml } from '../readers/yaml.ts';
import { dirname } from '../rules/paths.ts';
import { isRecord, pick, toPort, type PortRow } from './common.ts';
import { callArgs } from './entry.ts';

/**
 * Host ports of local dev orchestrators:
 * - Tiltfile `k8s_resource('api', port_forwards=['8000:80', 9229, port_forward(5000, 5000)])` (also
 *   `dc_resource`, `kubectl_resource`): the local side of each forward, attributed to the resource (the
 *   compose files a Tiltfile's `docker_compose()` loads are read by compose.ts);
 * - kind cluster configs (`apiVersion: kind.x-k8s.io/...`): `nodes[].extraPortMappings[].hostPort`;
 * - skaffold.yaml `portForward[]` (and per profile): `localPort`, else `port`, attributed to `skaffold:<resource>`.
 */
const MAX_FILES = 50;
const MAX_TEXT = 256 * 1024;
const RESOURCE_CALL = /\b(?:k8s_resource|dc_resource|kubectl_resource)\(/g;

export async function findOrchestratorPorts(ctx: ScanContext): Promise<PortRow[]> {
  const tilt = pick(ctx, (b) => b === 'Tiltfile' || b.endsWith('.tiltfile') || b.endsWith('.Tiltfile'));
  const yaml = pick(ctx, (b) => /\.ya?ml$/.test(b) && /kind|cluster|skaffold/i.test(b));
  if (yaml.length > MAX_FILES) {
    ctx.note(`${yaml.length} kind, cluster or skaffold yaml files; only the first ${MAX_FILES} were read`);
  }
  const perFile = await Promise.all([...tilt.slice(0, MAX_FILES), ...yaml.slice(0, MAX_FILES)].map(async (file) => {
    const text = (await ctx.read(file))?.slice(0, MAX_TEXT);
    if (text === undefined) return [];
    const dir = dirname(file);
    const unread: string[] = [];
    const found = /\.ya?ml$/.test(file) ? yamlForwards(text) : tiltForwards(text, unread);
    for (const item of unread.slice(0, 5)) {
      ctx.note(`A port forward in ${file} is computed (${item.slice(0, 60)}); no port was read from it`);
    }
    return found.map(([name, port]): PortRow => ({ port, script_name: name, config_source: file, dir }));
  }));
  return perFile.flat();
}

/** `[resource, local port]` of a Tiltfile's `port_forwards=`; items that are computed go to `unread`. */
export function tiltForwards(source: string, unread: string[] = []): Array<[string, number]> {
  const text = source.replace(/(^|\s)#.*$/gm, '$1');
  const out: Array<[string, number]> = [];
  for (const m of text.matchAll(RESOURCE_CALL)) {
    const args = callArgs(text, m.index + m[0].length);
    const name = /^['"]([^'"]*)['"]$/.exec(args[0] ?? '')?.[1] ?? null;
    const value = args.map((a) => /^port_forwards\s*=\s*([^]*)$/.exec(a)?.[1]).find((v) => v !== undefined);
    if (value === undefined || name === null) continue;
    for (const item of splitList(value.trim())) {
      const call = /^port_forward\(\s*(\d{1,5})/.exec(item);
      const literal = /^(?:['"]([^'"]*)['"]|(\d{1,5}))$/.exec(item);
      // `'[host:]local:remote'`: the local port is the one before the remote; a bare number forwards to itself.
      const local = call?.[1] ?? literal?.[2] ?? literal?.[1]?.split(':').slice(-2)[0];
      const port = toPort(local);
      if (port !== undefined) out.push([name, port]);
      else unread.push(item);
    }
  }
  return out;
}

/** The items of `[a, b, f(c, d)]` (top-level commas only), or the value itself when it is not a list. */
function splitList(value: string): string[] {
  if (!value.startsWith('[')) return [value];
  return callArgs(value, 1);
}

/** Host ports of a kind cluster config or a skaffold config (every document of the file). */
export function yamlForwards(text: string): Array<[string, number]> {
  if (!text.includes('extraPortMappings') && !text.includes('portForward')) return [];
  const out: Array<[string, number]> = [];
  for (const part of text.split(/^---[ \t]*$/m).slice(0, 20)) {
    let doc: unknown;
    try {
      doc = parseYaml(part);
    } catch {
      continue;
    }
    if (!isRecord(doc) || typeof doc.apiVersion !== 'string') continue;
    if (doc.apiVersion.startsWith('kind.x-k8s.io')) {
      for (const node of Array.isArray(doc.nodes) ? doc.nodes : []) {
        const maps = isRecord(node) && Array.isArray(node.extraPortMappings) ? node.extraPortMappings : [];
        for (const map of maps) {
          const port = isRecord(map) ? toPort(map.hostPort) : undefined;
          if (port !== undefined) out.push(['kind', port]);
        }
      }
    } else if (doc.apiVersion.startsWith('skaffold/')) {
      const profiles: unknown[] = Array.isArray(doc.profiles) ? doc.profiles : [];
      const lists = [doc.portForward, ...profiles.map((p) => (isRecord(p) ? p.portForward : undefined))];
      for (const list of lists) {
        for (const fwd of Array.isArray(list) ? list : []) {
          if (!isRecord(fwd)) continue;
          const port = toPort(fwd.localPort) ?? toPort(fwd.port);
          const name = typeof fwd.resourceName === 'string' ? fwd.resourceName : 'forward';
          if (port !== undefined) out.push([`skaffold:${name}`, port]);
        }
      }
    }
  }
  return out;
}
