import type { ScanContext } from '../scan/types.ts';
import { rowsOfFiles, toPort, type PortRow } from './common.ts';
import { parseYamlDocuments } from '../readers/yaml.ts';
import { dirname } from '../scan/paths.ts';

/** Keys that set an HTTP port in Spring Boot, Quarkus and Micronaut. */
const PORT_KEYS = ['server.port', 'management.server.port', 'quarkus.http.port', 'micronaut.server.port'];
const APP_CONFIG = /^application(?:-[\w.-]+)?\.(properties|ya?ml)$/;

/**
 * `server.port` (and the Quarkus/Micronaut/management equivalents) in `application*.properties` and
 * `application*.yml` under `src/main/resources` (profiles included). `${PORT:8080}` yields 8080.
 */
export async function findJvmPorts(ctx: ScanContext): Promise<PortRow[]> {
  return rowsOfFiles(ctx, (base, path) => APP_CONFIG.test(base) && /(?:^|\/)src\/main\/resources(?:\/config)?\/[^/]+$/.test(path), (text, file) => {
    const values = file.endsWith('.properties') ? propertiesValues(text) : yamlValues(text);
    const rows: PortRow[] = [];
    for (const value of values) {
      const port = springPort(value);
      if (port !== undefined) rows.push({ port, script_name: null, config_source: file, dir: dirname(file) });
    }
    return rows;
  });
}

/** A Spring value: a literal, or a `${VAR:default}` placeholder's default. */
export function springPort(value: unknown): number | undefined {
  if (typeof value === 'number') return toPort(value);
  if (typeof value !== 'string') return undefined;
  const placeholder = /^\$\{[^:}]+:([^}]*)\}$/.exec(value.trim());
  return toPort(placeholder ? placeholder[1] : value);
}

/** Values of the port keys in a .properties file (`key=value`, `key: value`, `key value`). */
export function propertiesValues(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const m = /^\s*([\w.-]+)\s*[=:\s]\s*(.*?)\s*$/.exec(raw);
    if (m && PORT_KEYS.includes(m[1]!)) out.push(m[2]!);
  }
  return out;
}

/** Values of the port keys in a YAML config, nested (`server:\n  port:`) or dotted (`server.port:`), every document. */
export function yamlValues(text: string): unknown[] {
  const out: unknown[] = [];
  const visit = (node: unknown, prefix: string): void => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) {
      if (PORT_KEYS.includes(prefix)) out.push(node);
      return;
    }
    for (const [k, v] of Object.entries(node)) visit(v, prefix === '' ? k : `${prefix}.${k}`);
  };
  for (const doc of parseYamlDocuments(text)) visit(doc, '');
  return out;
}
