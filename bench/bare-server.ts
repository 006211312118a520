// The baseline server: node:http and nothing else. It answers each recorded path with the exact
// status, headers and bytes projdex sent for it (see recordResponses), and /health with a fixed body.
// Usage: node bench/bare-server.ts [routes.json]
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

interface Recorded { status: number; headers: Record<string, string>; body: string }

const routes = new Map<string, { status: number; headers: Record<string, string>; body: Buffer }>();
const file = process.argv[2];
if (file) {
  const recorded = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Recorded>;
  for (const [path, r] of Object.entries(recorded)) routes.set(path, { ...r, body: Buffer.from(r.body, 'base64') });
}
const health = Buffer.from('{"status":"ok","timestamp":"2025-01-01T00:00:00.000Z"}');

const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
  const hit = routes.get(req.url ?? '');
  if (hit) {
    res.writeHead(hit.status, hit.headers);
    res.end(hit.body);
  } else if (req.url === '/health') {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': health.length });
    res.end(health);
  } else {
    res.writeHead(404, { 'Content-Length': 0 });
    res.end();
  }
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`bare listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.once('SIGTERM', () => { server.close(); server.closeAllConnections(); });
