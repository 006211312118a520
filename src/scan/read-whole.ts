import { readSync } from 'node:fs';

/**
 * The text of an open file of `size` bytes (its stat size), or undefined when it grew since the stat.
 * Why one byte of room past the size: a read that fills it tells a file that grew from one read whole.
 */
export function readWhole(fd: number, size: number): string | undefined {
  const buffer = Buffer.allocUnsafe(size + 1);
  let length = 0;
  for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0;) length += n;
  return length > size ? undefined : buffer.toString('utf8', 0, length);
}
