import type { Client } from './client.ts';

export interface ScanProgressEvent { readonly id: number; readonly files: number; readonly tests: number }

/**
 * Follows `scan.progress` on the server's event stream, so the CLI's progress line can count files
 * walked and tests found while a scan runs. Resolves once the stream is open (events of a scan started
 * after that are seen); the returned function closes it. Progress is decoration: a stream that cannot
 * open or breaks leaves the line without counts, never fails the command.
 */
export async function followProgress(
  client: Client,
  onProgress: (event: ScanProgressEvent) => void,
): Promise<() => void> {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  let res: Response;
  try {
    const headers = { ...client.headers, accept: 'text/event-stream' };
    res = await fetch(`${client.url}/api/events`, { headers, signal: controller.signal });
  } catch {
    return stop;
  }
  if (!res.ok || !res.body) return stop;
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let at: number;
      while ((at = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        if (!/^event: scan\.progress$/m.test(block)) continue;
        const data = /^data: (.*)$/m.exec(block)?.[1];
        try {
          const event = JSON.parse(data ?? '') as ScanProgressEvent;
          if (Number.isInteger(event.files) && Number.isInteger(event.tests)) onProgress(event);
        } catch { /* not ours to judge: skip the event */ }
      }
    }
  })().catch(() => {});
  return stop;
}
