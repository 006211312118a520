import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { call, makeTree, seededRandom, serve } from './helpers.ts';

// Random and mutated requests over raw sockets, from a seeded PRNG: set PROJDEX_FUZZ_SEED to replay a
// failure. The oracle: no 5xx, nothing logged as an unexpected error, and the server still healthy.

const SEED = Number(process.env.PROJDEX_FUZZ_SEED ?? 0x5eed);
const MAX_REQUESTS = 5_000;
const BUDGET_MS = 4_500;
const WORKERS = 16;

/** Helpers over a seeded PRNG, so a failing run replays from PROJDEX_FUZZ_SEED. */
function prng(seed: number) {
  const next = seededRandom(seed);
  const int = (n: number): number => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  const chance = (p: number): boolean => next() < p;
  return { next, int, pick, chance };
}
type Random = ReturnType<typeof prng>;

const METHODS = ['GET', 'GET', 'POST', 'POST', 'PUT', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE', 'PROPFIND', 'get', 'G@T', 'M-SEARCH'];
const ROUTES = ['/health', '/api/projects', '/api/projects/tags', '/api/projects/scan/all', '/api/projects/:id', '/api/projects/:id/tests',
  '/api/projects/:id/ports', '/api/projects/:id/scan', '/api/settings', '/api/settings/:key', '/', '/api', '/api/projects/:id/:id', '/nope'];
const IDS = ['1', '2', '3', '0', '-1', '1.5', '1e3', '0x10', '99999999999999999999', '9007199254740993', 'abc', '%00', '%', '%zz', '%E0%A4%A',
  '%ED%A0%80', '%C0%AF', '..', '.', '%2e%2e', '%2F', 'ü', '%F0%9F%9A%80', '__proto__', 'constructor', ' ', '%20', ';', "'", '"'];

function randomString(r: Random, max: number): string {
  const alphabets = ['abcxyz019', '%/?#&=+;:@!$\'"()*,[]{}<>\\^`|~ ', '\u0000\u0001\u001f\u007f', 'üé目录🚀\u2028\ufeff', '\ud800\udfff'];
  let out = '';
  const length = r.int(max + 1);
  for (let i = 0; i < length; i++) out += r.pick([...r.pick(alphabets)]);
  return out;
}

function randomId(r: Random): string {
  if (r.chance(0.1)) return '9'.repeat(1 + r.int(400));
  if (r.chance(0.2)) return encodeURIComponent(randomString(r, 12)).replaceAll('%2F', r.pick(['/', '%2F']));
  return r.pick(IDS);
}

function randomTarget(r: Random): string {
  if (r.chance(0.01)) return `/${'a'.repeat(100_000)}`;
  let path = r.pick(ROUTES).replaceAll(':id', () => randomId(r)).replace(':key', () => randomId(r));
  if (r.chance(0.1)) path = path.replace(/\/$/, '') + '/';
  if (r.chance(0.05)) path = path.replaceAll('/', '//');
  if (r.chance(0.15)) path += `?${randomString(r, 20).replace(/[#\s]/g, '')}`;
  if (r.chance(0.03)) path = r.pick(['*', 'http://localhost/health', '//evil.com/api/projects', 'api/projects', `${path}#x`]);
  return path;
}

function randomValue(r: Random, depth: number, projectDirs: readonly string[]): unknown {
  switch (r.int(depth > 3 ? 7 : 9)) {
    case 0: return null;
    case 1: return r.chance(0.5);
    case 2: return r.pick([0, -1, 1.5, 1e308, -1e-308, 2 ** 53 + 1, 42]);
    case 3: return randomString(r, 40);
    case 4: return r.pick(projectDirs);
    case 5: return r.pick(['/', '/nonexistent/dir', 'relative', '~nobody', '', ' ', `${r.pick(projectDirs)}/../..`, `${r.pick(projectDirs)}/file.txt`, `${r.pick(projectDirs)}\u0000x`]);
    case 6: return 'x'.repeat(r.pick([0, 1, 4096, 4097, 65_536, 65_537]));
    case 7: return Array.from({ length: r.int(5) }, () => randomValue(r, depth + 1, projectDirs));
    default: return Object.fromEntries(Array.from({ length: r.int(5) }, () => [r.pick(['name', 'path', 'value', 'tags', 'description', 'framework', '__proto__', 'constructor', randomString(r, 8)]), randomValue(r, depth + 1, projectDirs)]));
  }
}

function randomBody(r: Random, projectDirs: readonly string[]): Buffer | undefined {
  switch (r.int(12)) {
    case 0: return undefined;
    case 1: return Buffer.from(r.pick(['', '{', '}', '[]', 'null', '42', '"x"', '{"name":', 'true', '{"value":"v"}garbage']));
    case 2: {
      const depth = 1_000 + r.int(100_000);
      return Buffer.from(r.chance(0.5) ? '['.repeat(depth) + ']'.repeat(depth) : `{"value":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`);
    }
    case 3: return Buffer.from(`{"value":${r.pick(['1e400', '-1e400', '123456789012345678901234567890', '0.0000000000000000000001', '-0', '1E+2'])}}`);
    case 4: {
      const bytes = Buffer.from(JSON.stringify({ name: 'n', path: r.pick(projectDirs), value: 'v' }));
      for (let i = 0; i < 3; i++) bytes[r.int(bytes.length)] = r.pick([0x00, 0xff, 0xc0, 0xed, 0x80, 0x22, 0x5c]);
      return bytes;
    }
    case 5: return Buffer.from(`{"value":"a\u0000b","name":"\u0000","path":"${r.pick(projectDirs)}\\u0000"}`);
    default: return Buffer.from(JSON.stringify(randomValue(r, 0, projectDirs)) ?? 'null');
  }
}

interface Generated { bytes: Buffer; label: string; wellFormed: boolean }

/** A request a real client could send: right method, an id that may exist, fields of random types. */
function plausible(r: Random, projectDirs: readonly string[]): { method: string; target: string; body: Buffer | undefined } {
  const id = r.pick(['1', '2', '3', '4', '5']);
  const field = (): unknown => (r.chance(0.6) ? randomString(r, 30) : randomValue(r, 2, projectDirs));
  const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
  switch (r.int(10)) {
    case 0: return { method: 'PUT', target: `/api/settings/${encodeURIComponent(randomString(r, 10)) || 'k'}`, body: json({ value: r.chance(0.5) ? randomString(r, 50) : randomValue(r, 2, projectDirs) }) };
    case 1: return { method: 'POST', target: '/api/projects', body: json({ name: field(), path: r.chance(0.6) ? r.pick(projectDirs) : randomValue(r, 2, projectDirs) }) };
    case 2: case 3: {
      const update: Record<string, unknown> = {};
      for (const key of ['name', 'description', 'framework']) if (r.chance(0.4)) update[key] = field();
      if (r.chance(0.4)) update.tags = r.chance(0.6) ? Array.from({ length: r.int(4) }, () => randomString(r, 8)) : randomValue(r, 2, projectDirs);
      return { method: 'PUT', target: `/api/projects/${id}`, body: json(update) };
    }
    case 4: return { method: 'POST', target: r.chance(0.8) ? `/api/projects/${id}/scan` : '/api/projects/scan/all', body: undefined };
    case 5: return { method: 'DELETE', target: `/api/projects/${r.pick([id, '5', '6'])}`, body: undefined };
    default: return { method: 'GET', target: r.pick(['/health', '/api/projects', '/api/projects/tags', '/api/settings', `/api/projects/${id}`, `/api/projects/${id}/tests`, `/api/projects/${id}/ports`]), body: undefined };
  }
}

function generate(r: Random, port: number, projectDirs: readonly string[]): Generated {
  const { method, target, body } = r.chance(0.4)
    ? plausible(r, projectDirs)
    : { method: r.pick(METHODS), target: randomTarget(r), body: randomBody(r, projectDirs) };
  const headers: string[] = [];
  const host = r.chance(0.9) ? r.pick([`127.0.0.1:${port}`, 'localhost', `[::1]:${port}`]) : r.pick(['evil.com', '', 'localhost.evil.com', `127.0.0.1:${port}, evil.com`]);
  headers.push(`Host: ${host}`);
  if (r.chance(0.15)) headers.push(`Origin: ${r.pick([`http://127.0.0.1:${port}`, `http://localhost:${port}`, 'null', 'http://evil.com', `https://127.0.0.1:${port}`])}`);
  if (r.chance(0.05)) headers.push(`Sec-Fetch-Site: ${r.pick(['cross-site', 'same-origin', 'none', 'garbage'])}`);
  if (r.chance(0.05)) headers.push(`Authorization: ${r.pick(['Bearer x', 'Basic eDp5', ''])}`);
  if (r.chance(0.05)) headers.push(`Access-Control-Request-Method: ${r.pick(METHODS)}`);
  if (body !== undefined || r.chance(0.1)) {
    headers.push(`Content-Type: ${r.pick(['application/json', 'application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/json; charset=latin1', 'APPLICATION/JSON', 'application/json-patch+json', ''])}`);
  }
  const chunked = body !== undefined && r.chance(0.2);
  if (body !== undefined) headers.push(chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`);
  if (r.chance(0.03)) headers.push(`X-Junk: ${'j'.repeat(r.int(20_000))}`);
  const encodedBody = body === undefined ? Buffer.alloc(0) : chunked
    ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')])
    : body;
  let bytes = Buffer.concat([Buffer.from(`${method} ${target} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`, 'utf8'), encodedBody]);
  let wellFormed = true;
  if (r.chance(0.1)) {
    // Byte-level mutation anywhere in the request: the parser or the handlers must cope.
    bytes = Buffer.from(bytes);
    for (let i = 1 + r.int(4); i > 0; i--) bytes[r.int(bytes.length)] = r.int(256);
    wellFormed = false;
  }
  if (r.chance(0.02)) {
    bytes = bytes.subarray(0, r.int(bytes.length));
    wellFormed = false;
  }
  return { bytes, label: `${method} ${target.slice(0, 120)} ${body ? `body ${body.length} B ${body.subarray(0, 60).toString('latin1')}` : ''}`, wellFormed };
}

/** Sends one request; resolves with every status line seen (Node's own replies included) and whether one came back. */
function exchange(port: number, bytes: Buffer, isHead: boolean, timeoutMs: number, halfClose: boolean): Promise<{ statuses: number[]; answered: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received: Buffer = Buffer.alloc(0);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const statuses = [...received.toString('latin1').matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
      resolve({ statuses, answered: statuses.length > 0 });
    };
    const complete = (): boolean => {
      const end = received.indexOf('\r\n\r\n');
      if (end === -1) return false;
      const head = received.subarray(0, end).toString('latin1');
      const status = Number(head.split(' ')[1]);
      if (isHead || status === 204 || status === 304) return true;
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (length) return received.length >= end + 4 + Number(length[1]);
      return /\r\ntransfer-encoding: *chunked/i.test(head) && received.includes('0\r\n\r\n', end);
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (complete()) finish();
    });
    socket.on('error', () => {});
    socket.on('close', finish);
    socket.on('connect', () => { if (halfClose) socket.end(bytes); else socket.write(bytes); });
  });
}

test('thousands of random and mutated requests: no 5xx, no crash, /health fine afterwards', { timeout: 30_000 }, async (t) => {
  const root = makeTree(t);
  const projectDirs = ['a', 'b', 'c d', 'ü'].map((name) => join(root, name));
  for (const dir of projectDirs) {
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"devDependencies":{"jest":"30"},"scripts":{"start":"node x --port 3000"}}');
    writeFileSync(join(dir, 'src', 'a.test.js'), "test('x', () => {});");
    writeFileSync(join(dir, 'file.txt'), '');
  }
  const running = await serve(t, { dataDir: join(root, 'data') });
  const { port, url, logs } = running;
  for (const [i, dir] of projectDirs.slice(0, 2).entries()) assert.equal((await call(`${url}/api/projects`, 'POST', { name: `p${i}`, path: dir })).status, 201);

  const r = prng(SEED);
  const requests = Array.from({ length: MAX_REQUESTS }, () => generate(r, port, projectDirs));
  const deadline = performance.now() + BUDGET_MS;
  const problems: string[] = [];
  let sent = 0;
  let unanswered = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < requests.length && performance.now() < deadline) {
      const index = next++;
      const { bytes, label, wellFormed } = requests[index]!;
      const { statuses, answered } = await exchange(port, bytes, label.startsWith('HEAD '), wellFormed ? 3_000 : 300, !wellFormed);
      sent++;
      for (const status of statuses) if (status >= 500) problems.push(`#${index} ${label} -> ${status}`);
      if (!answered) {
        unanswered++;
        if (wellFormed && !/^(CONNECT|PROPFIND|M-SEARCH|G@T) /.test(label)) problems.push(`#${index} ${label} -> no answer`);
      }
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));

  assert.deepEqual(problems, [], `seed ${SEED}`);
  assert.deepEqual(logs.map((line) => line.map(String).join(' ')), [], `nothing was logged as an unexpected error (seed ${SEED})`);
  assert.ok(sent >= 1_000, `sent ${sent} requests (${unanswered} unanswered, all malformed)`);
  const health = await call(`${url}/health`);
  assert.equal(health.status, 200);
  assert.equal(running.store.integrityCheck(), 'ok');
  assert.equal((await call(`${url}/api/settings`)).status, 200);
  assert.equal((await call(`${url}/api/projects`)).status, 200);
});
