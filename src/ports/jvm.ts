import type { ScanContext } from '../rules/types.ts';
import { rowsOfFiles, toPort, type PortRow } from './common.ts';
import { parseYamlDocuments } from '../readers/yaml.ts';
import { dirname } from '../rules/paths.ts';

/** Keys that set an HTTP port in Spring Boot, Quarkus and Micronaut. */
const PORT_KEYS = ['server.port', 'management.server.port', 'quarkus.http.port', 'micronaut.server.port'];
const APP_CONFIG = /^application(?:-[\w.-]+)?\.(properties|ya?ml)$/;

/**
 * `server.port` (and the Quarkus/Micronaut/management equivalents) in `application*.properties` and
 * `application*.yml` under `src/main/resources` (profiles included). `${PORT:8080}` yields 8080.
 */
export async function findJvmPorts(ctx: ScanContext): Promise<PortRow[]> {
  const configs = rowsOfFiles(ctx, (base) => APP_CONFIG.test(base), (text, file) => {
    const values = file.endsWith('.properties') ? propertiesValues(text) : yamlValues(text);
    // The module is the directory holding src/main/resources: its Boot default is replaced by this port.
    const dir = file.slice(0, Math.max(0, file.lastIndexOf('src/main/resources') - 1));
    const rows: PortRow[] = [];
    for (const [key, value] of values) {
      const port = springPort(value);
      const suppress = key === 'server.port' ? ['spring-boot:8080'] : [];
      if (port !== undefined) rows.push({ port, script_name: null, config_source: file, dir, suppress });
    }
    return rows;
  }, (path) => RESOURCES.test(path));
  const boots = rowsOfFiles(ctx, (base) => BUILD_FILE.test(base), (text, file): PortRow[] =>
    isBootWebApp(text)
      ? [{ port: 8080, script_name: null, config_source: 'default:spring-boot', dir: dirname(file), key: 'spring-boot:8080' }]
      : []);
  return (await Promise.all([configs, boots])).flat();
}

const RESOURCES = /(?:^|\/)src\/main\/resources(?:\/config)?\/[^/]+$/;
/** Starters that bring an embedded web server (Boot 4 renamed `-web` to `-webmvc`). */
const WEB_STARTER = /spring-boot-starter-(?:web|webflux|webmvc|jersey|websocket|tomcat|jetty|undertow|reactor-netty)\b/;
const BUILD_FILE = /^(?:pom\.xml|build\.gradle(?:\.kts)?)$/;

/**
 * A Spring Boot web application's build file: the Boot plugin or parent and a web starter in the same file.
 * Such an app listens on 8080 when no `server.port` is set (Spring Boot's documented default).
 */
export function isBootWebApp(buildFile: string): boolean {
  return /spring-boot/.test(buildFile) && WEB_STARTER.test(buildFile);
}

/** A Spring value: a literal, or a `${VAR:default}` placeholder's default. */
export function springPort(value: unknown): number | undefined {
  if (typeof value === 'number') return toPort(value);
  if (typeof value !== 'string') return undefined;
  const placeholder = /^\$\{[^:}]+:([^}]*)\}$/.exec(value.trim());
  return toPort(placeholder ? placeholder[1] : value);
}

/** `[key, value]` of the port keys in a .properties file (`key=value`, `key: value`, `key value`). */
export function propertiesValues(text: string): Array<[key: string, value: string]> {
  const out: Array<[string, string]> = [];
  for (const raw of text.split('\n')) {
    const m = /^\s*([\w.-]+)\s*[=:\s]\s*(.*?)\s*$/.exec(raw);
    if (m && PORT_KEYS.includes(m[1]!)) out.push([m[1]!, m[2]!]);
  }
  return out;
}

/** `[key, value]` of the port keys in a YAML config, nested (`server:\n  port:`) or dotted (`server.port:`), every document. */
export function yamlValues(text: string): Array<[key: string, value: unknown]> {
  const out: Array<[string, unknown]> = [];
  const visit = (node: unknown, prefix: string): void => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) {
      if (PORT_KEYS.includes(prefix)) out.push([prefix, node]);
      return;
    }
    for (const [k, v] of Object.entries(node)) visit(v, prefix === '' ? k : `${prefix}.${k}`);
  };
  for (const doc of parseYamlDocuments(text)) visit(doc, '');
  return out;
}
