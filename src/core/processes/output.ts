/**
 * A started script's output: its stdout and stderr go to one log file (so a kept process outlives the server
 * that started it), read back in batches for `process.output` events and, at most its last 1 MiB, for
 * `GET /api/processes/:id`. A log over 8 MiB is cut back to its last 1 MiB.
 */
import { promises as fsp } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

export const OUTPUT_TAIL = 1 << 20;
const MAX_LOG = 8 << 20;
/** Most bytes one batch reads, so a flood of output is sent over several ticks. */
const BATCH = 256 << 10;

/** The last `max` bytes of a log file ('' when it is gone), from a line start when it was cut. */
export async function readTail(path: string, max = OUTPUT_TAIL): Promise<string> {
  let handle;
  try {
    handle = await fsp.open(path, 'r');
  } catch {
    return '';
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - max);
    const buffer = Buffer.alloc(size - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    return start === 0 ? text : text.slice(text.indexOf('\n') + 1);
  } finally {
    await handle.close();
  }
}

/** Follows one log file: `next()` gives what was written since the last call ('' when nothing). */
export function followLog(path: string, from = 0) {
  let offset = from;
  const decoder = new StringDecoder('utf8');
  return {
    async next(): Promise<string> {
      let handle;
      try {
        handle = await fsp.open(path, 'r+');
      } catch {
        return '';
      }
      try {
        let { size } = await handle.stat();
        if (size > MAX_LOG) {
          // The writer appends (O_APPEND), so after the cut its next line lands after the kept tail.
          const keep = await readTail(path);
          await handle.truncate(0);
          await handle.write(keep, 0);
          size = offset = Buffer.byteLength(keep);
        }
        if (size < offset) offset = 0;
        if (size === offset) return '';
        const buffer = Buffer.alloc(Math.min(size - offset, BATCH));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
        offset += bytesRead;
        return decoder.write(buffer.subarray(0, bytesRead));
      } finally {
        await handle.close();
      }
    },
  };
}
