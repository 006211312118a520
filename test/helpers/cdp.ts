// A small Chrome DevTools Protocol client over Node's built-in WebSocket: launch Chromium, open a page,
// evaluate, click, type, screenshot. Every wait has a deadline; `close()` always kills the browser.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const CHROMIUM = process.env.PROJDEX_CHROMIUM ?? '/usr/bin/chromium';

/** True when a Chromium binary is there to drive. */
export function haveChromium(): boolean {
  return existsSync(CHROMIUM);
}

type Pending = { resolve: (v: any) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };

export interface Browser {
  send(method: string, params?: Record<string, unknown>, sessionId?: string): Promise<any>;
  on(listener: (method: string, params: any, sessionId?: string) => void): () => void;
  newPage(options?: { width?: number; height?: number }): Promise<Page>;
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh profile and connects to it; `deadlineMs` bounds the start. */
export async function launch({ deadlineMs = 20_000, commandMs = 15_000 } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'projdex-chromium-'));
  const child: ChildProcess = spawn(CHROMIUM, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--hide-scrollbars', '--mute-audio',
    `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let killed = false;
  const kill = (): void => {
    if (killed) return;
    killed = true;
    try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
    rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
  };
  // A crashed test run must not leave a browser behind.
  process.once('exit', kill);

  let wsUrl: string;
  try {
    wsUrl = await new Promise<string>((resolve, reject) => {
      let stderr = '';
      const timer = setTimeout(() => reject(new Error(`Chromium did not print its DevTools URL within ${deadlineMs} ms:\n${stderr}`)), deadlineMs);
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => {
        stderr += chunk;
        const m = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
        if (m) { clearTimeout(timer); resolve(m[1]!); }
      });
      child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`Chromium exited (${code}) before listening:\n${stderr}`)); });
      child.once('error', (error) => { clearTimeout(timer); reject(error); });
    });
  } catch (error) {
    kill();
    throw error;
  }
  child.stderr!.resume();

  const ws = new WebSocket(wsUrl);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('DevTools WebSocket did not open in time')), deadlineMs);
    ws.addEventListener('open', () => { clearTimeout(timer); resolve(); }, { once: true });
    ws.addEventListener('error', () => { clearTimeout(timer); reject(new Error('DevTools WebSocket failed')); }, { once: true });
  }).catch((error) => { kill(); throw error; });

  let nextId = 1;
  const pending = new Map<number, Pending>();
  const listeners = new Set<(method: string, params: any, sessionId?: string) => void>();
  ws.addEventListener('message', (message) => {
    const msg = JSON.parse(String(message.data)) as { id?: number; method?: string; params?: any; sessionId?: string; result?: any; error?: { message: string } };
    if (msg.id !== undefined) {
      const job = pending.get(msg.id);
      if (!job) return;
      pending.delete(msg.id);
      clearTimeout(job.timer);
      if (msg.error) job.reject(new Error(msg.error.message));
      else job.resolve(msg.result);
      return;
    }
    for (const listener of listeners) listener(msg.method!, msg.params, msg.sessionId);
  });
  ws.addEventListener('close', () => {
    for (const job of pending.values()) { clearTimeout(job.timer); job.reject(new Error('DevTools connection closed')); }
    pending.clear();
  });

  const browser: Browser = {
    send(method, params = {}, sessionId) {
      return new Promise((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => { pending.delete(id); reject(new Error(`${method} did not answer within ${commandMs} ms`)); }, commandMs);
        pending.set(id, { resolve, reject, timer });
        ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
      });
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async newPage({ width = 1280, height = 800 } = {}) {
      const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await browser.send('Target.attachToTarget', { targetId, flatten: true });
      const page = createPage(browser, sessionId, targetId);
      await Promise.all([page.send('Page.enable'), page.send('Runtime.enable'), page.send('Log.enable'), page.send('Network.enable')]);
      await page.size(width, height);
      return page;
    },
    async close() {
      try { ws.close(); } catch { /* already closed */ }
      kill();
      process.removeListener('exit', kill);
    },
  };
  return browser;
}

export type Page = ReturnType<typeof createPage>;

function createPage(browser: Browser, sessionId: string, targetId: string) {
  /** Uncaught exceptions, console errors and CSP reports of this page. */
  const problems: string[] = [];
  /** Every URL the page requested, to prove the token never went into one. */
  const requests: Array<{ url: string; headers: Record<string, string> }> = [];
  browser.on((method, params, from) => {
    if (from !== sessionId) return;
    if (method === 'Runtime.exceptionThrown') problems.push(`exception: ${params.exceptionDetails?.exception?.description ?? params.exceptionDetails?.text}`);
    if (method === 'Runtime.consoleAPICalled' && params.type === 'error') problems.push(`console.error: ${params.args.map((a: any) => a.value ?? a.description).join(' ')}`);
    if (method === 'Log.entryAdded' && params.entry.level === 'error') problems.push(`log: ${params.entry.text}`);
    if (method === 'Network.requestWillBeSent') requests.push({ url: params.request.url, headers: params.request.headers });
  });
  const send = (method: string, params: Record<string, unknown> = {}): Promise<any> => browser.send(method, params, sessionId);

  const page = {
    problems,
    requests,
    send,
    async goto(url: string): Promise<void> {
      await send('Page.navigate', { url });
      await page.waitFor('document.readyState === "complete"', 'the page to load');
    },
    /** Evaluates an expression in the page (promises awaited) and returns its JSON value. */
    async eval<T = any>(expression: string): Promise<T> {
      const { result, exceptionDetails } = await send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
      if (exceptionDetails) throw new Error(`in page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
      return result.value as T;
    },
    /**
     * Polls `expression` until it is truthy; returns its value. Fails with `what` at the deadline, which is
     * far past what a quiet machine needs (a wait ends as soon as its condition holds): a loaded one is slow.
     */
    async waitFor<T = any>(expression: string, what: string, deadlineMs = 60_000): Promise<T> {
      const deadline = Date.now() + deadlineMs;
      let last: unknown;
      for (;;) {
        last = await page.eval(expression).catch((error: Error) => error.message);
        if (last) return last as T;
        if (Date.now() > deadline) {
          const seen = await page.eval<string>('document.body.innerText.slice(-600)').catch(() => '?');
          throw new Error(`timed out after ${deadlineMs} ms waiting for ${what} (${expression} -> ${JSON.stringify(last)}); the page ends with:\n${seen}`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    /** Text content of the first match, or null. */
    text: (selector: string): Promise<string | null> => page.eval(`document.querySelector(${JSON.stringify(selector)})?.textContent ?? null`),
    /** A real mouse click at the centre of the first element matching `selector` (scrolled into view). */
    async click(selector: string): Promise<void> {
      const box = await page.waitFor<{ x: number; y: number }>(`(() => {
        const el = document.querySelector(${JSON.stringify(selector)});
        if (!el || el.disabled) return null;
        el.scrollIntoView({ block: 'center' });
        const r = el.getBoundingClientRect();
        return r.width && r.height ? { x: r.left + r.width / 2, y: r.top + r.height / 2 } : null;
      })()`, `${selector} to be clickable`);
      for (const type of ['mousePressed', 'mouseReleased']) {
        await send('Input.dispatchMouseEvent', { type, x: box.x, y: box.y, button: 'left', clickCount: 1 });
      }
    },
    /** Focuses `selector`, clears it, and types `text` as keyboard input. */
    async type(selector: string, text: string): Promise<void> {
      await page.waitFor(`(() => { const el = document.querySelector(${JSON.stringify(selector)}); if (!el) return false; el.focus(); el.select?.(); return document.activeElement === el; })()`, `${selector} to take focus`);
      await send('Input.dispatchKeyEvent', { type: 'keyDown', key: 'Backspace', code: 'Backspace', windowsVirtualKeyCode: 8 });
      await send('Input.dispatchKeyEvent', { type: 'keyUp', key: 'Backspace', code: 'Backspace', windowsVirtualKeyCode: 8 });
      if (text) await send('Input.insertText', { text });
    },
    /** Presses one named key (Enter, Tab, Escape, Space) on whatever has focus. */
    async press(key: 'Enter' | 'Tab' | 'Escape' | ' ', { shift = false } = {}): Promise<void> {
      const codes = { Enter: 13, Tab: 9, Escape: 27, ' ': 32 } as const;
      const base = { key, code: key === ' ' ? 'Space' : key, windowsVirtualKeyCode: codes[key], modifiers: shift ? 8 : 0 };
      await send('Input.dispatchKeyEvent', { type: 'keyDown', ...base, ...(key === 'Enter' ? { text: '\r' } : key === ' ' ? { text: ' ' } : {}) });
      await send('Input.dispatchKeyEvent', { type: 'keyUp', ...base });
    },
    /** Closes this tab. */
    async close(): Promise<void> {
      await browser.send('Target.closeTarget', { targetId });
    },
    async size(width: number, height: number): Promise<void> {
      await send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: width < 500 });
    },
    async colorScheme(scheme: 'light' | 'dark'): Promise<void> {
      await send('Emulation.setEmulatedMedia', { features: [{ name: 'prefers-color-scheme', value: scheme }] });
    },
    /** Saves a PNG of the viewport (or the full page) to `file`. */
    async screenshot(file: string, { fullPage = true } = {}): Promise<void> {
      let clip;
      if (fullPage) {
        const { cssContentSize, cssLayoutViewport } = await send('Page.getLayoutMetrics');
        clip = { x: 0, y: 0, width: cssLayoutViewport.clientWidth, height: Math.min(Math.ceil(cssContentSize.height), 4000), scale: 1 };
      }
      const { data } = await send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: fullPage, ...(clip ? { clip } : {}) });
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, Buffer.from(data, 'base64'));
    },
  };
  return page;
}
