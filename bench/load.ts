import { Agent, request } from 'node:http';
import { percentile } from './stats.ts';

export interface Response { status: number; headers: Record<string, string>; body: Buffer }

/** One HTTP request over `agent` (a fresh connection when omitted); resolves with the whole body. */
export function send(url: string, { method = 'GET', body, agent }: { method?: string; body?: unknown; agent?: Agent } = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(url, {
      method,
      agent: agent ?? false,
      headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {},
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** `send` that expects a 2xx JSON answer and parses it. */
export async function json<T = any>(url: string, options: Parameters<typeof send>[1] = {}): Promise<T> {
  const res = await send(url, options);
  if (res.status < 200 || res.status > 299) throw new Error(`${options.method ?? 'GET'} ${url}: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
  return (res.body.length === 0 ? undefined : JSON.parse(res.body.toString('utf8'))) as T;
}

const HOP_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** Fetches `paths` from `url` and returns them as the bare server's routes file: same status, headers, bytes. */
export async function recordResponses(url: string, paths: readonly string[], { method = 'GET', body }: { method?: string; body?: unknown } = {}): Promise<Record<string, { status: number; headers: Record<string, string>; body: string }>> {
  const out: Record<string, { status: number; headers: Record<string, string>; body: string }> = {};
  for (const path of paths) {
    const res = await send(url + path, { method, body });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status}`);
    const headers = Object.fromEntries(Object.entries(res.headers).filter(([k]) => !HOP_HEADERS.has(k)));
    out[path] = { status: res.status, headers, body: res.body.toString('base64') };
  }
  return out;
}

export interface LoadResult { rps: number; p50: number; p99: number; count: number; errors: number; bytes: number }

/**
 * Closed-loop load: `concurrency` workers each send GET `path` back to back over a keep-alive Agent
 * for `durationMs` (after `warmupMs` unmeasured), and every latency is kept for the percentiles.
 */
export async function load(url: string, path: string, { concurrency = 1, durationMs = 1000, warmupMs = 200, method = 'GET', body = undefined as unknown } = {}): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  const target = url + path;
  const run = async (ms: number, latencies: number[] | null): Promise<{ errors: number; bytes: number }> => {
    const end = performance.now() + ms;
    let errors = 0;
    let bytes = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const started = performance.now();
        try {
          const res = await send(target, { agent, method, body });
          if (res.status !== 200) errors++;
          bytes += res.body.length;
        } catch {
          errors++;
        }
        latencies?.push(performance.now() - started);
      }
    }));
    return { errors, bytes };
  };
  try {
    await run(warmupMs, null);
    const latencies: number[] = [];
    const started = performance.now();
    const { errors, bytes } = await run(durationMs, latencies);
    const elapsed = performance.now() - started;
    return { rps: (latencies.length / elapsed) * 1000, p50: percentile(latencies, 50), p99: percentile(latencies, 99), count: latencies.length, errors, bytes };
  } finally {
    agent.destroy();
  }
}
