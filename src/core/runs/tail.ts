/** The last `limit` bytes of a stream of output, kept in chunks (no copy of the whole per write). */
export function createTail(limit = 1024 * 1024) {
  const chunks: Buffer[] = [];
  let size = 0;
  let dropped = 0;
  return {
    push(chunk: Buffer): void {
      if (chunk.length >= limit) {
        dropped += size + chunk.length - limit;
        chunks.length = 0;
        chunks.push(chunk.subarray(chunk.length - limit));
        size = limit;
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
      while (size - chunks[0]!.length >= limit) {
        const first = chunks.shift()!;
        size -= first.length;
        dropped += first.length;
      }
    },
    /** The kept text: at most `limit` bytes, starting at a line start when something was dropped. */
    text(): string {
      let buffer = Buffer.concat(chunks);
      if (size > limit) buffer = buffer.subarray(size - limit);
      if (dropped > 0 || size > limit) {
        const newline = buffer.indexOf(10);
        if (newline !== -1 && newline < 4096) buffer = buffer.subarray(newline + 1);
      }
      // A multi-byte character cut at the start decodes as U+FFFD; strip it.
      return buffer.toString('utf8').replace(/^\uFFFD+/, '');
    },
    get droppedBytes(): number { return dropped + Math.max(0, size - limit); },
  };
}
