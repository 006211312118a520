import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { startServer } from '../../src/server/server.ts';
import { call, makeTree, memoryLogger, PORT_RANGE_ENV, serve, spawnBin } from '../helpers/index.ts';

// The request boundary of docs "Security", probed over raw sockets: fetch cannot set Host, Origin or
// Sec-Fetch-Site, nor send bytes that are not valid HTTP.

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Socket error seen before the response was read in full (e.g. ECONNRESET). */
  error?: string;
}

/** Reads one HTTP/1.1 response (Content-Length, chunked or until close) from `buffer`; undefined while incomplete. */
function parseResponse(buffer: Buffer, closed: boolean): { response: RawResponse; rest: Buffer } | undefined {
  const end = buffer.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] = headers[name] === undefined ? line.slice(colon + 1).trim() : `${headers[name]}, ${line.slice(colon + 1).trim()}`;
  }
  const status = Number(statusLine.split(' ')[1]);
  const start = end + 4;
  if (status === 204 || status === 304 || status === 100) return { response: { status, headers, body: '' }, rest: buffer.subarray(start) };
  if (headers['content-length'] !== undefined) {
    const stop = start + Number(headers['content-length']);
    if (buffer.length < stop) return undefined;
    return { response: { status, headers, body: buffer.subarray(start, stop).toString('utf8') }, rest: buffer.subarray(stop) };
  }
  if (headers['transfer-encoding'] === 'chunked') {
    const stop = buffer.indexOf('0\r\n\r\n', start);
    if (stop === -1) return undefined;
    return { response: { status, headers, body: '' }, rest: buffer.subarray(stop + 5) };
  }
  return closed ? { response: { status, headers, body: buffer.subarray(start).toString('utf8') }, rest: Buffer.alloc(0) } : undefined;
}

/**
 * Opens a connection, writes each of `writes` (strings or bytes), and resolves with the first `count`
 * responses, or with what arrived once the server closes the connection.
 */
/**
 * Writes `writes` on one connection (`paceMs` apart) and reads `count` responses, or what came before a close.
 * It ends as soon as they arrive; the timeout only bounds a server that never answers (a loaded machine is slow).
 */
function rawExchange(port: number, writes: Array<string | Buffer>, { count = 1, timeoutMs = 60_000, paceMs = 0 } = {}): Promise<{ responses: RawResponse[]; closed: boolean; error?: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let buffer: Buffer = Buffer.alloc(0);
    const responses: RawResponse[] = [];
    let error: string | undefined;
    let done = false;
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses, closed, ...(error ? { error } : {}) });
    };
    const drain = (closed: boolean): void => {
      for (let next = parseResponse(buffer, closed); next; next = parseResponse(buffer, closed)) {
        if (next.response.status !== 100) responses.push(next.response);
        buffer = next.rest;
        if (responses.length >= count) return finish(false);
        if (buffer.length === 0) break;
      }
      if (closed) finish(true);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', (chunk) => { buffer = Buffer.concat([buffer, chunk]); drain(false); });
    socket.on('error', (e: NodeJS.ErrnoException) => { error = e.code ?? e.message; });
    socket.on('close', () => drain(true));
    socket.on('connect', () => {
      if (paceMs === 0) { for (const w of writes) socket.write(w); return; }
      let next = 0;
      const pace = setInterval(() => { if (next < writes.length && !socket.destroyed) socket.write(writes[next++]!); else clearInterval(pace); }, paceMs);
      socket.on('close', () => clearInterval(pace));
    });
  });
}

interface RawRequest {
  method?: string;
  target?: string;
  /** Header lines; `Host` defaults to `127.0.0.1:PORT` unless given (a `null` value omits it). */
  headers?: Record<string, string | null>;
  body?: string | Buffer;
}

function serialize(port: number, { method = 'GET', target = '/health', headers = {}, body }: RawRequest): Buffer {
  const all: Record<string, string | null> = { Host: `127.0.0.1:${port}`, ...headers };
  if (body !== undefined && !Object.keys(all).some((k) => /^(content-length|transfer-encoding)$/i.test(k))) all['Content-Length'] = String(Buffer.byteLength(body));
  let head = `${method} ${target} HTTP/1.1\r\n`;
  for (const [name, value] of Object.entries(all)) if (value !== null) head += `${name}: ${value}\r\n`;
  return Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), Buffer.from(body ?? '')]);
}

/** One request over a fresh raw connection; fails the test if no response comes back. */
async function raw(port: number, request: RawRequest = {}): Promise<RawResponse> {
  const { responses, error } = await rawExchange(port, [serialize(port, request)]);
  assert.ok(responses[0], `no response to ${request.method ?? 'GET'} ${request.target ?? '/health'} (${error ?? 'closed'})`);
  return responses[0];
}

const json = (res: RawResponse): unknown => JSON.parse(res.body);

/** The headers every projdex response carries, errors included. */
function assertBaseHeaders(res: RawResponse, label: string): void {
  assert.equal(res.headers['x-content-type-options'], 'nosniff', label);
  assert.equal(res.headers['cross-origin-resource-policy'], 'same-origin', label);
  assert.equal(res.headers['cache-control'], 'no-store', label);
  assert.equal(res.headers['x-powered-by'], undefined, label);
  if (res.status !== 204) assert.equal(res.headers['content-type'], 'application/json; charset=utf-8', label);
}

// Suites run side by side: the slow-client cases wait on server timers, not on the CPU.
suite('security', { concurrency: true }, () => {
  suite('request target', () => {
    test('absolute-form, asterisk-form and a target with # are 400 JSON', async (t) => {
      const { port } = await serve(t);
      for (const target of ['http://x/', `http://127.0.0.1:${port}/health`, '*', '/health#frag', '/api/settings#/../x']) {
        const res = await raw(port, { target });
        assert.deepEqual([res.status, json(res)], [400, { error: 'Malformed request target' }], target);
        assertBaseHeaders(res, target);
      }
    });
  });

  suite('Host allow-list', () => {
    test('loopback names with any port and in any case are accepted', async (t) => {
      const { port } = await serve(t);
      for (const host of ['localhost', 'LocalHost:1', `localhost:${port}`, '127.0.0.1', `127.0.0.1:${port}`, '[::1]', `[::1]:${port}`, '[::1]:80']) {
        assert.equal((await raw(port, { headers: { Host: host } })).status, 200, host);
      }
    });

    test('every other Host is 403 on every route, /health and OPTIONS included', async (t) => {
      const { port } = await serve(t);
      const hosts = ['localhost.evil.com', '127.0.0.1.nip.io', `evil.example:${port}`, '', '0.0.0.0', '[::2]', '[::ffff:127.0.0.1]',
        '127.0.0.2', 'localhost:', 'localhost:x', 'user@localhost', 'localhost.', '127.1', '2130706433', 'local host'];
      const requests: RawRequest[] = [
        { target: '/health' },
        { method: 'OPTIONS', target: '/api/projects', headers: { 'Access-Control-Request-Method': 'POST' } },
        { target: '/api/projects' },
        { method: 'PUT', target: '/api/settings/k', headers: { 'Content-Type': 'application/json' }, body: '{"value":"v"}' },
        { target: '/nope' },
      ];
      for (const host of hosts) {
        for (const request of requests) {
          const res = await raw(port, { ...request, headers: { ...request.headers, Host: host } });
          assert.deepEqual([res.status, json(res)], [403, { error: 'Host not allowed' }], `${host} ${request.method ?? 'GET'} ${request.target}`);
          assert.ok(!res.body.includes(host) || host === '', 'the refused Host is not echoed');
          assertBaseHeaders(res, host);
        }
      }
      assert.deepEqual((await call(`http://127.0.0.1:${port}/api/settings`)).body, {}, 'no write went through');
    });

    test('a request without Host is 400 (Node requireHostHeader)', async (t) => {
      const { port } = await serve(t);
      assert.equal((await raw(port, { headers: { Host: null } })).status, 400);
    });

    test('names configured through allowedHosts are accepted, case-insensitively', async (t) => {
      const { port } = await serve(t, { allowedHosts: ['Projdex.Test'] });
      assert.equal((await raw(port, { headers: { Host: 'projdex.test' } })).status, 200);
      assert.equal((await raw(port, { headers: { Host: 'PROJDEX.TEST:8080' } })).status, 200);
      assert.equal((await raw(port, { headers: { Host: 'localhost' } })).status, 200);
      for (const host of ['other.test', 'projdex.test.evil.com', 'sub.projdex.test']) {
        assert.equal((await raw(port, { headers: { Host: host } })).status, 403, host);
      }
    });
  });

  suite('Sec-Fetch-Site', () => {
    test('cross-site is 403 on every method; same-origin, same-site and none pass', async (t) => {
      const { port } = await serve(t);
      for (const method of ['GET', 'OPTIONS', 'POST']) {
        const res = await raw(port, { method, target: method === 'POST' ? '/api/projects/scan/all' : '/api/projects', headers: { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' } });
        assert.deepEqual([res.status, json(res)], [403, { error: 'Cross-site request refused' }], method);
        assertBaseHeaders(res, method);
      }
      assert.equal((await raw(port, { headers: { 'Sec-Fetch-Site': 'Cross-Site' } })).status, 403, 'tokens compare case-insensitively');
      for (const site of ['same-origin', 'same-site', 'none']) {
        assert.equal((await raw(port, { target: '/api/projects', headers: { 'Sec-Fetch-Site': site } })).status, 200, site);
      }
    });
  });

  suite('Origin policy', () => {
    test('no Origin is allowed and gets no CORS headers', async (t) => {
      const { port } = await serve(t);
      const res = await raw(port, { target: '/api/projects' });
      assert.equal(res.status, 200);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
    });

    test('the service\'s own origins are echoed with Vary: Origin, never * nor credentials', async (t) => {
      const { port } = await serve(t);
      for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`]) {
        const res = await raw(port, { target: '/api/projects', headers: { Origin: origin } });
        assert.equal(res.status, 200, origin);
        assert.equal(res.headers['access-control-allow-origin'], origin);
        assert.match(res.headers.vary ?? '', /\bOrigin\b/);
        assert.equal(res.headers['access-control-allow-credentials'], undefined);
        assert.equal(res.headers['access-control-allow-private-network'], undefined);

        const pre = await raw(port, { method: 'OPTIONS', target: '/api/projects/1', headers: { Origin: origin, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'content-type' } });
        assert.equal(pre.status, 204, `preflight ${origin}`);
        assert.equal(pre.body, '');
        assert.equal(pre.headers['access-control-allow-origin'], origin);
        assert.match(pre.headers['access-control-allow-methods'] ?? '', /\bPUT\b/);
        assert.match(pre.headers['access-control-allow-headers'] ?? '', /content-type/i);
        assert.equal(pre.headers['access-control-max-age'], '600');
        assert.equal(pre.headers['access-control-allow-credentials'], undefined);
        assertBaseHeaders(pre, 'preflight');
      }
    });

    test('a preflight for an unknown path is a 404', async (t) => {
      const { port } = await serve(t);
      const res = await raw(port, { method: 'OPTIONS', target: '/nope', headers: { Origin: `http://localhost:${port}`, 'Access-Control-Request-Method': 'GET' } });
      assert.equal(res.status, 404);
    });

    test('null, look-alikes, other ports, https and LAN addresses are 403, preflights included', async (t) => {
      const { port } = await serve(t);
      const origins = ['null', `http://localhost.evil.com:${port}`, 'http://localhost.evil.com', `http://127.0.0.1:${port + 1}`, 'http://127.0.0.1',
        `https://127.0.0.1:${port}`, `https://localhost:${port}`, `http://192.168.1.10:${port}`, `http://10.0.0.2:${port}`, `http://0.0.0.0:${port}`,
        `http://localhost:${port}/`, `http://evil.com/http://localhost:${port}`, `http://127.0.0.1:${port}.evil.com`, `file://`, `*`, ''];
      const requests: RawRequest[] = [
        { target: '/api/projects' },
        { target: '/health' },
        { method: 'OPTIONS', target: '/api/projects', headers: { 'Access-Control-Request-Method': 'POST' } },
        { method: 'PUT', target: '/api/settings/k', headers: { 'Content-Type': 'application/json' }, body: '{"value":"v"}' },
        { method: 'DELETE', target: '/api/projects/1' },
      ];
      for (const origin of origins) {
        for (const request of requests) {
          const res = await raw(port, { ...request, headers: { ...request.headers, Origin: origin } });
          const label = `${JSON.stringify(origin)} ${request.method ?? 'GET'} ${request.target}`;
          assert.deepEqual([res.status, json(res)], [403, { error: `Origin not allowed: start projdex with --allowed-origin ${origin} to allow it` }], label);
          assert.equal(res.headers['access-control-allow-origin'], undefined, label);
          assertBaseHeaders(res, label);
        }
      }
      assert.deepEqual((await call(`http://127.0.0.1:${port}/api/settings`)).body, {}, 'no write went through');
    });

    test('an exact origin configured through allowedOrigins is allowed; near misses are not', async (t) => {
      const { port } = await serve(t, { allowedOrigins: ['http://localhost:5173'] });
      const ok = await raw(port, { method: 'OPTIONS', target: '/api/settings/k', headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'PUT' } });
      assert.equal(ok.status, 204);
      assert.equal(ok.headers['access-control-allow-origin'], 'http://localhost:5173');
      const put = await raw(port, { method: 'PUT', target: '/api/settings/k', headers: { Origin: 'http://localhost:5173', 'Content-Type': 'application/json' }, body: '{"value":"v"}' });
      assert.equal(put.status, 200);
      for (const origin of ['http://localhost:5174', 'https://localhost:5173', 'http://localhost:5173/', 'http://LOCALHOST:5173']) {
        assert.equal((await raw(port, { target: '/api/settings', headers: { Origin: origin } })).status, 403, origin);
      }
    });
  });

  suite('Content-Type of bodies', () => {
    test('a body must be application/json (a charset of utf-8 may follow); anything else is 415', async (t) => {
      const dir = makeTree(t);
      const { port } = await serve(t);
      const body = JSON.stringify({ name: 'a', path: dir });
      for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x',
        'application/json-patch+json', 'application/jsonx', 'application/json; charset=latin1', 'application/json; charset="utf-16"', null]) {
        const res = await raw(port, { method: 'POST', target: '/api/projects', headers: { 'Content-Type': type }, body });
        assert.deepEqual([res.status, json(res)], [415, { error: 'Content-Type must be application/json' }], String(type));
        assertBaseHeaders(res, String(type));
      }
      const chunked = await raw(port, { method: 'PUT', target: '/api/settings/k', headers: { 'Transfer-Encoding': 'chunked' }, body: '0d\r\n{"value":"v"}\r\n0\r\n\r\n' });
      assert.equal(chunked.status, 415, 'a chunked body without a type');
      assert.deepEqual((await call(`http://127.0.0.1:${port}/api/projects`)).body, []);
      for (const type of ['Application/JSON', 'application/json;charset="UTF-8"', 'application/json ; charset=utf8']) {
        const res = await raw(port, { method: 'PUT', target: '/api/settings/k', headers: { 'Content-Type': type }, body: '{"value":"v"}' });
        assert.equal(res.status, 200, type);
      }
    });

    test('a bodiless POST needs no Content-Type', async (t) => {
      const { port } = await serve(t);
      assert.equal((await raw(port, { method: 'POST', target: '/api/projects/scan/all' })).status, 200);
      assert.equal((await raw(port, { method: 'POST', target: '/api/projects/scan/all', headers: { 'Content-Length': '0', 'Content-Type': 'text/plain' } })).status, 200);
    });

    test('a text/plain body is 415 on routes that ignore their body too (a form post must not start a scan)', async (t) => {
      const dir = makeTree(t);
      const { port, url } = await serve(t);
      await call(`${url}/api/projects`, 'POST', { name: 'a', path: dir });
      for (const target of ['/api/projects/1/scan', '/api/projects/scan/all']) {
        const res = await raw(port, { method: 'POST', target, headers: { 'Content-Type': 'text/plain' }, body: 'x=1' });
        assert.equal(res.status, 415, target);
      }
      assert.equal((await raw(port, { method: 'DELETE', target: '/api/projects/1', headers: { 'Content-Type': 'text/plain' }, body: 'x' })).status, 415);
      assert.equal((await call(`${url}/api/projects/1`)).body.last_scanned, null);
    });
  });

  suite('body size limit', () => {
    const PREFIX = '{"value":"';

    test('a 2 MiB body with Content-Length gets its 413 read in full, no reset, and the connection stays usable', async (t) => {
      const { port } = await serve(t);
      const big = Buffer.alloc(2 * 1024 * 1024, 'x');
      const head = serialize(port, { method: 'PUT', target: '/api/settings/k', headers: { 'Content-Type': 'application/json', 'Content-Length': String(big.length) } });
      const { responses, error } = await rawExchange(port, [head, big, serialize(port, { target: '/health' })], { count: 2 });
      assert.equal(error, undefined, 'no ECONNRESET');
      assert.equal(responses[0]?.status, 413);
      assert.deepEqual(json(responses[0]!), { error: 'Request body too large' });
      assert.notEqual(responses[0]?.headers.connection, 'close');
      assertBaseHeaders(responses[0]!, '413');
      assert.equal(responses[1]?.status, 200, 'the next request on the same connection is served');
    });

    test('a 2 MiB body of a declared length sent slower than the grace still gets its 413 whole', async (t) => {
      const { port } = await serve(t);
      const big = Buffer.alloc(2 * 1024 * 1024, 'x');
      const head = serialize(port, { method: 'PUT', target: '/api/settings/k', headers: { 'Content-Type': 'application/json', 'Content-Length': String(big.length) } });
      // 16 pieces 300 ms apart: 4.8 s of sending, past the 2 s grace, while every pause is well inside it.
      const pieces = Array.from({ length: 16 }, (_, i) => big.subarray(i * 131_072, (i + 1) * 131_072));
      const { responses, error } = await rawExchange(port, [head, ...pieces, serialize(port, { target: '/health' })], { count: 2, timeoutMs: 60_000, paceMs: 300 });
      assert.equal(error, undefined, 'no ECONNRESET');
      assert.deepEqual([responses[0]?.status, json(responses[0]!)], [413, { error: 'Request body too large' }]);
      assert.equal(responses[1]?.status, 200, 'the next request on the same connection is served');
    });

    test('a chunked body that goes over the limit is 413 without a reset', async (t) => {
      const { port } = await serve(t);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const parts: Buffer[] = [Buffer.from(`${(PREFIX.length).toString(16)}\r\n${PREFIX}\r\n`)];
      for (let i = 0; i < 24; i++) parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
      parts.push(Buffer.from('2\r\n"}\r\n0\r\n\r\n'));
      const head = serialize(port, { method: 'PUT', target: '/api/settings/k', headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } });
      const { responses, error } = await rawExchange(port, [head, ...parts, serialize(port, { target: '/api/settings' })], { count: 2 });
      assert.equal(error, undefined);
      assert.deepEqual([responses[0]?.status, json(responses[0]!)], [413, { error: 'Request body too large' }]);
      assert.deepEqual(json(responses[1]!), {}, 'nothing was stored, and the connection still serves');
    });

    test('a client that keeps sending a chunked body after its 413 is cut off (grace 2 s, 10x margin)', async (t) => {
      const { port } = await serve(t);
      const started = performance.now();
      const result = await new Promise<{ status: number; closedAfterMs: number }>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        let text = '';
        const drip = setInterval(() => socket.write(`100\r\n${'x'.repeat(256)}\r\n`), 100);
        socket.on('error', () => {});
        socket.on('data', (d) => { text += d; });
        // The client gives up only after 30 s: a server that never cuts fails the assertion below.
        const guard = setTimeout(() => socket.destroy(), 30_000);
        socket.on('close', () => { clearInterval(drip); clearTimeout(guard); resolve({ status: Number(text.split(' ')[1]), closedAfterMs: performance.now() - started }); });
        socket.write(serialize(port, { method: 'PUT', target: '/api/settings/k', headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } }));
        socket.write(`100001\r\n${'x'.repeat(0x100001)}\r\n`);
      });
      assert.equal(result.status, 413);
      assert.ok(result.closedAfterMs < 20_000, `closed after ${Math.round(result.closedAfterMs)} ms`);
    });

    test('a body of exactly 1 MiB is accepted', async (t) => {
      const { port } = await serve(t);
      const body = `${PREFIX}${'y'.repeat(1_048_576 - PREFIX.length - 2)}"}`;
      assert.equal(Buffer.byteLength(body), 1_048_576);
      const res = await raw(port, { method: 'PUT', target: '/api/settings/big', headers: { 'Content-Type': 'application/json' }, body });
      assert.equal(res.status, 200);
    });
  });

  suite('body decoding', () => {
    test('invalid UTF-8 is 400 and nothing is stored', async (t) => {
      const { port, url } = await serve(t);
      const sequences = [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0x80]];
      for (const bytes of sequences) {
        const body = Buffer.concat([Buffer.from('{"value":"a'), Buffer.from(bytes), Buffer.from('b"}')]);
        const res = await raw(port, { method: 'PUT', target: '/api/settings/k', headers: { 'Content-Type': 'application/json' }, body });
        assert.deepEqual([res.status, json(res)], [400, { error: 'Request body is not valid UTF-8' }], bytes.join(','));
      }
      assert.deepEqual((await call(`${url}/api/settings`)).body, {});
    });

    test('hostile JSON is a 400, never a 500: deep nesting, raw NUL, huge numbers, duplicate keys', async (t) => {
      const { port, url } = await serve(t);
      const put = (body: string | Buffer) => raw(port, { method: 'PUT', target: '/api/settings/k', headers: { 'Content-Type': 'application/json' }, body });
      assert.equal((await put('['.repeat(200_000))).status, 400);
      assert.equal((await put('{"value":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}')).status, 400);
      assert.equal((await put('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000))).status, 400, 'deep object without value');
      assert.equal((await put(Buffer.from('{"value":"a\0b"}'))).status, 400, 'a raw NUL inside a string is not JSON');
      assert.equal((await put('\u0000')).status, 400);
      assert.deepEqual(json(await put('{"value":"a\\u0000b"}')), { key: 'k', value: 'a\u0000b' }, 'an escaped NUL is just a character');
      assert.deepEqual(json(await put('{"value":1e400}')), { key: 'k', value: 'Infinity' });
      assert.deepEqual(json(await put('{"value":"first","value":"second"}')), { key: 'k', value: 'second' });
      assert.deepEqual(json(await put('\ufeff{"value":"bom"}')), { key: 'k', value: 'bom' });
      assert.equal((await call(`${url}/health`)).status, 200);
    });
  });

  suite('server timeouts', () => {
    test('a client that sends its headers one byte a second is cut off at the headers timeout', { timeout: 60_000 }, async (t) => {
      // Timeouts shortened for the test: cut at 500 ms, checked every 200 ms; asserted with a 10x margin.
      const { port } = await serve(t, { timeouts: { headersMs: 500, checkMs: 200 } });
      const request = serialize(port, { target: '/health', headers: { 'X-Padding': 'p'.repeat(100) } });
      const started = performance.now();
      const { closedAfterMs, sent, answer } = await new Promise<{ closedAfterMs: number; sent: number; answer: string }>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        let sent = 0;
        let answer = '';
        const drip = setInterval(() => { if (sent < request.length - 1) socket.write(request.subarray(sent, ++sent)); }, 1_000);
        socket.on('data', (d) => { answer += d; });
        socket.on('error', () => {});
        const guard = setTimeout(() => socket.destroy(), 30_000);
        socket.on('close', () => { clearInterval(drip); clearTimeout(guard); resolve({ closedAfterMs: performance.now() - started, sent, answer }); });
      });
      assert.ok(closedAfterMs < 7_000, `closed after ${Math.round(closedAfterMs)} ms`);
      assert.ok(sent < request.length - 1, 'cut off before the headers were complete');
      assert.ok(answer === '' || /^HTTP\/1\.1 408/.test(answer), answer.slice(0, 40));
    });
  });

  suite('response headers', () => {
    test('nosniff, CORP and no-store on every status: 200, 201, 204, 400, 401, 403, 404, 405, 409, 413, 415', async (t) => {
      const dir = makeTree(t);
      const { port } = await serve(t);
      const cases: Array<[number, RawRequest]> = [
        [200, { target: '/health' }],
        [201, { method: 'POST', target: '/api/projects', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'a', path: dir }) }],
        [409, { method: 'POST', target: '/api/projects', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'a', path: dir }) }],
        [204, { method: 'OPTIONS', target: '/api/projects' }],
        [204, { method: 'DELETE', target: '/api/projects/1' }],
        [400, { target: '/api/projects/abc' }],
        [400, { method: 'PUT', target: '/api/settings/k', headers: { 'Content-Type': 'application/json' }, body: '{' }],
        [403, { headers: { Host: 'evil.com' } }],
        [404, { target: '/nope' }],
        [404, { target: '/api/projects/9' }],
        [405, { method: 'PATCH', target: '/api/projects' }],
        [413, { method: 'PUT', target: '/api/settings/k', headers: { 'Content-Type': 'application/json', 'Content-Length': '2000000' } }],
        [415, { method: 'PUT', target: '/api/settings/k', headers: { 'Content-Type': 'text/plain' }, body: 'x' }],
      ];
      for (const [status, request] of cases) {
        const res = await raw(port, request);
        const label = `${request.method ?? 'GET'} ${request.target ?? '/health'}`;
        assert.equal(res.status, status, label);
        assertBaseHeaders(res, label);
        if (status >= 400) assert.equal(typeof (json(res) as { error: unknown }).error, 'string', label);
      }
      const unauthorized = await startServer({ port: 0, token: 'secret', logger: memoryLogger() });
      t.after(() => unauthorized.close());
      const res = await raw(unauthorized.port, { target: '/api/projects' });
      assert.equal(res.status, 401);
      assertBaseHeaders(res, '401');
    });

    test('Node\'s own protocol errors carry the same headers and a JSON body', async (t) => {
      const { port } = await serve(t);
      for (const target of ['/hea\u0000lth', '/health\u0001']) {
        const res = await raw(port, { target });
        assert.equal(res.status, 400);
        assertBaseHeaders(res, JSON.stringify(target));
      }
      const tooBig = await raw(port, { headers: { 'X-Big': 'x'.repeat(20_000) } });
      assert.equal(tooBig.status, 431);
      assertBaseHeaders(tooBig, '431');
    });
  });

  suite('binding and token', () => {
    test('binds 127.0.0.1 by default', async (t) => {
      const { server } = await serve(t);
      const address = server.address();
      assert.equal(typeof address === 'object' && address?.address, '127.0.0.1');
    });

    test('a non-loopback host without a token refuses to start', async () => {
      await assert.rejects(startServer({ port: 0, host: '0.0.0.0', logger: memoryLogger() }), { name: 'TypeError', message: /token/ });
      await assert.rejects(startServer({ port: 0, host: '::', logger: memoryLogger() }), { name: 'TypeError', message: /token/ });
    });

    test('with a token every route but /health needs Authorization: Bearer <token>', async (t) => {
      const token = 'tok-ABC_123';
      const { port, server } = await serve(t, { host: '0.0.0.0', token });
      // What the server really bound: every IPv4 interface, on the port it reports.
      const address = server.address();
      assert.ok(address !== null && typeof address === 'object');
      assert.deepEqual([address.address, address.family, address.port], ['0.0.0.0', 'IPv4', port]);
      assert.equal((await raw(port, { target: '/health' })).status, 200, '/health stays open for liveness checks');
      const refused: RawRequest[] = [
        { target: '/api/projects' },
        { target: '/api/projects', headers: { Authorization: 'Bearer wrong' } },
        { target: '/api/projects', headers: { Authorization: `Bearer ${token}x` } },
        { target: '/api/projects', headers: { Authorization: `Bearer ${token.slice(0, -1)}` } },
        { target: '/api/projects', headers: { Authorization: `Basic ${Buffer.from(`user:${token}`).toString('base64')}` } },
        { target: '/api/projects', headers: { Authorization: `Token ${token}` } },
        { target: '/api/projects', headers: { Authorization: token } },
        { target: '/api/projects', headers: { Authorization: 'Bearer' } },
        { target: '/api/projects', headers: { Authorization: `Bearer ${token} extra` } },
        { target: `/api/projects?token=${token}` },
        { target: `/api/projects?access_token=${token}` },
        { method: 'PUT', target: '/api/settings/k', headers: { 'Content-Type': 'application/json' }, body: '{"value":"v"}' },
        { target: '/nope' },
      ];
      for (const request of refused) {
        const res = await raw(port, request);
        const label = `${request.target} ${request.headers?.Authorization ?? ''}`;
        assert.deepEqual([res.status, json(res)], [401, { error: 'Missing or invalid token' }], label);
        assert.equal(res.headers['www-authenticate'], 'Bearer', label);
      }
      for (const auth of [`Bearer ${token}`, `bearer ${token}`]) {
        const res = await raw(port, { target: '/api/projects', headers: { Authorization: auth } });
        assert.equal(res.status, 200, auth);
      }
      const put = await raw(port, { method: 'PUT', target: '/api/settings/k', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: '{"value":"v"}' });
      assert.equal(put.status, 200);
      // A preflight cannot carry credentials; it is answered, and the real request then needs the token.
      const pre = await raw(port, { method: 'OPTIONS', target: '/api/projects', headers: { Origin: `http://localhost:${port}`, 'Access-Control-Request-Method': 'GET' } });
      assert.equal(pre.status, 204);
      assert.match(pre.headers['access-control-allow-headers'] ?? '', /authorization/i);
      // The token does not replace the Origin policy.
      assert.equal((await raw(port, { target: '/api/projects', headers: { Authorization: `Bearer ${token}`, Origin: 'http://evil.com' } })).status, 403);
    });

    /** Starts the CLI without the test's PROJDEX_* variables; resolves once stdout matches `ready` (deadline: fails). */
    async function startCli(t: { after(fn: () => unknown): void }, args: string[], env: Record<string, string>, ready: RegExp) {
      const running = spawnBin(t, args, { PROJDEX_PORT_RANGE: PORT_RANGE_ENV, ...env });
      await running.waitFor(ready);
      return { child: running.child, stdout: running.stdout(), exit: running.exit };
    }

    test('the CLI on --host 0.0.0.0 without a token prints a generated one once, and it works', async (t) => {
      const dataDir = join(makeTree(t), 'data');
      const { child, stdout, exit } = await startCli(t, ['--host', '0.0.0.0', '--port', '0', '--data-dir', dataDir], {}, /token: \S+/);
      const port = Number(/listening on http:\/\/0\.0\.0\.0:(\d+)/.exec(stdout)?.[1]);
      const token = /token: (\S+)/.exec(stdout)?.[1] ?? '';
      assert.ok(port > 0, stdout);
      assert.match(token, /^[A-Za-z0-9_-]{43}$/, '32 random bytes in base64url');
      assert.equal(stdout.split(token).length - 1, 1, 'the token is printed exactly once');
      assert.equal((await fetch(`http://127.0.0.1:${port}/api/projects`)).status, 401);
      const ok = await fetch(`http://127.0.0.1:${port}/api/projects`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(ok.status, 200);
      assert.deepEqual(await ok.json(), []);
      child.kill('SIGTERM');
      assert.equal((await exit()).code, 0);
      assert.equal(statSync(dataDir).mode & 0o777, 0o700);
    });

    test('an empty PROJDEX_HOST means the default loopback bind, not every interface', async (t) => {
      const dataDir = join(makeTree(t), 'data');
      const { stdout } = await startCli(t, ['--port', '0', '--data-dir', dataDir], { PROJDEX_HOST: '' }, /^data: /m);
      assert.match(stdout, /listening on http:\/\/127\.0\.0\.1:\d+/);
      assert.doesNotMatch(stdout, /token:/);
    });
  });

  suite('handler failures', () => {
    test('a throwing handler gives a JSON 500 without details, logs the cause, and the server lives on', async (t) => {
      const logger = memoryLogger();
      const running = await startServer({ port: 0, logger });
      t.after(() => running.close());
      const { port } = running;
      running.store.close(); // Every statement now throws "database is not open".
      const res = await raw(port, { target: '/api/settings' });
      assert.deepEqual([res.status, res.body], [500, '{"error":"Internal server error"}']);
      assertBaseHeaders(res, '500');
      const put = await raw(port, { method: 'PUT', target: '/api/settings/k', headers: { 'Content-Type': 'application/json' }, body: '{"value":"v"}' });
      assert.deepEqual([put.status, json(put)], [500, { error: 'Internal server error' }]);
      const list = await raw(port, { target: '/api/projects' });
      assert.deepEqual([list.status, json(list)], [500, { error: 'Failed to fetch projects' }], 'the spec\'s own 500 text');
      assert.ok(!/at |\.ts|database|sqlite/i.test(res.body + put.body + list.body), 'no stack, path or driver message leaks');
      // One line per failed request (the `watch` setting poll may log the closed store too, and survives it).
      const requests = logger.lines.filter((line) => /^projdex: (GET|PUT|POST) /.test(String(line[0])));
      assert.equal(requests.length, 3, JSON.stringify(logger.lines.map(String)));
      assert.match(String(requests[0]), /GET \/api\/settings/);
      assert.ok(logger.lines.every((line) => line.some((part) => part instanceof Error)), 'the real error reaches the logger');
      assert.equal((await raw(port, { target: '/health' })).status, 200, 'the process and server live on');
    });
  });
});
