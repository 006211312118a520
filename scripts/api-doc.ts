// Renders docs/api.md from the route docs and schemas the server's OpenAPI document is built from:
// `node scripts/api-doc.ts > docs/api.md`. test/openapi.test.ts fails when the two differ.
import { readFileSync } from 'node:fs';
import { ROUTE_DOCS, type ResponseDoc } from '../src/server/api/openapi.ts';
import { BODIES, SCHEMAS, type Schema } from '../src/server/api/schemas.ts';

const INTRO = `# projdex HTTP API

<!-- Rendered by scripts/api-doc.ts from src/server/api/openapi.ts and src/server/api/schemas.ts; edit those, then
     run \`node scripts/api-doc.ts > docs/api.md\`. -->

The same description, machine-readable: \`GET /api/openapi.json\` (OpenAPI 3.1) on a running server.

## Conventions

- Base URL: what \`projdex\` prints (\`projdex listening on http://127.0.0.1:38124\`), also in \`DATA_DIR/server.json\`.
- Bodies are JSON. A request with a body must send \`Content-Type: application/json\` (UTF-8). Every answer is
  \`application/json; charset=utf-8\`, except 204 (no body) and the event stream.
- Times in records (\`created_at\`, \`last_scanned\`, \`last_detected\`) are **Unix seconds** (integers);
  the health \`timestamp\` is an ISO 8601 string with milliseconds, UTC.
- Every error is \`{ "error": "one sentence" }\` (plus \`project\` on the duplicate-path 409). Check the status
  before using a body.
- \`:id\` is a positive decimal integer (\`abc\`, \`0\`, \`1.5\`, \`1e3\` are 400 \`Invalid project ID\`).
- When the server was started with a token (always on a non-loopback \`--host\`), every route but \`/health\`
  needs \`Authorization: Bearer TOKEN\`.

## Errors any route may answer

| status | \`error\` | when |
|---|---|---|
| 401 | \`Missing or invalid token\` | a token is required and was missing or wrong (\`WWW-Authenticate: Bearer\`) |
| 403 | \`Host not allowed\` | the \`Host\` header is not a loopback name or an \`--allowed-host\` (DNS rebinding) |
| 403 | \`Cross-site request refused\` | \`Sec-Fetch-Site: cross-site\` |
| 403 | \`Origin not allowed: start projdex with --allowed-origin ORIGIN to allow it\` | a browser origin other than the server's own |
| 404 | \`Not found\` | unknown path |
| 405 | \`Method not allowed\` | known path, other method; \`Allow\` lists the methods |
| 413 | \`Request body too large\` | body over 1 MiB |
| 415 | \`Content-Type must be application/json\` | a body of another type |
| 400 | \`Request body is not valid JSON\`, \`Request body must be a JSON object\`, \`Request body is not valid UTF-8\` | unreadable body |
| 500 | \`Internal server error\` | a bug; the cause goes to the server's log, never to the client |
`;

function typeText(schema: Schema): string {
  if (typeof schema.$ref === 'string') return String(schema.$ref).split('/').at(-1)!;
  const types = Array.isArray(schema.type) ? schema.type as string[] : [String(schema.type ?? 'any')];
  return types.map((t) => (t === 'array' && schema.items ? `${typeText(schema.items as Schema)}[]` : t)).join(' or ');
}

function fields(schema: Schema): string {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = (schema.required ?? []) as string[];
  const rows = Object.entries(properties).map(([name, p]) => {
    const limits = [p.minimum !== undefined ? `min ${String(p.minimum)}` : '', p.maximum !== undefined ? `max ${String(p.maximum)}` : '',
      p.default !== undefined ? `default ${String(p.default)}` : ''].filter(Boolean).join(', ');
    return `| \`${name}\` | ${typeText(p)} | ${required.includes(name) ? 'yes' : 'no'} | ${String(p.description ?? '')}${limits ? ` (${limits})` : ''} |`;
  });
  return ['| field | type | always present / required | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

function responseText(status: string, r: ResponseDoc): string {
  const body = r.type ?? (r.body === undefined ? 'no body' : typeof r.body === 'string' ? r.body : typeText(r.body));
  const errors = r.errors ? `: ${r.errors.map((e) => (e.startsWith('`') ? e : `\`${e}\``)).join(', ')}` : '';
  return `| ${status} | ${body} | ${r.description}${errors} |`;
}

/** The whole of docs/api.md. */
export function renderApiDoc(): string {
  const out = [INTRO, '## Routes', ''];
  for (const [key, doc] of Object.entries(ROUTE_DOCS)) {
    out.push(`### \`${key}\``, '', `${doc.summary}.${doc.description ? ` ${doc.description}` : ''}`, '');
    if (doc.query) {
      out.push('| query | meaning |', '|---|---|', ...Object.entries(doc.query).map(([k, v]) => `| \`${k}\` | ${v} |`), '');
    }
    if (doc.body) out.push(`Request body (${BODIES[doc.body]!.description as string}):`, '', fields(BODIES[doc.body]!), '');
    out.push('| status | body | meaning |', '|---|---|---|', ...Object.entries(doc.responses).map(([s, r]) => responseText(s, r)), '');
  }
  out.push('## Records', '');
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    out.push(`### ${name}`, '', `${String(schema.description ?? '')}`, '');
    if (schema.properties) out.push(fields(schema), '');
    if (name === 'PortGroup') out.push('Each of `projects`:', '', fields((schema.properties as Record<string, Schema>).projects!.items as Schema), '');
  }
  // The event stream's rules are prose, kept in docs/events.md and included here whole.
  out.push(readFileSync(new URL('../docs/events.md', import.meta.url), 'utf8'));
  return `${out.join('\n').trimEnd()}\n`;
}

if (import.meta.main) process.stdout.write(renderApiDoc());
