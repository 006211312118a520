/**
 * Decoded snapshots a scan process keeps between scans. The server stores a snapshot as bytes and sends
 * them back with the next scan of the project; decoding them again (inflate, deserialise, index) costs an
 * unchanged 100k-file rescan about a sixth of its time. A process that encoded or decoded those very bytes
 * keeps what they decode to, and takes it when the same bytes come back (compared whole, never trusted by
 * a name or a generation). A server that sent a process the bytes before names them by their SHA-256 instead
 * (`held`): the request is then one small write, not ~650 KB crossing the pipe in pieces. A keeper of 0 bytes
 * keeps nothing: a library caller's heap keeps nothing.
 */
import { createHash } from 'node:crypto';
import type { ScanSnapshotData } from './snapshot.ts';

interface Kept {
  readonly bytes: Uint8Array; readonly data: ScanSnapshotData; readonly weight: number;
  /** Of `bytes`, taken when kept: after a scan's findings are sent (encoded), or beside a decode. */
  readonly digest: string;
}

/**
 * What names a snapshot's bytes in a request that leaves them out (SHA-256, hex): equal digests are equal
 * bytes for anything a project can write. ~0.6 ms for a 100k-file tree's ~650 KB.
 */
export function snapshotDigest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Keeps decoded snapshots, newest roots first, while their estimated heap sizes (see `keep`) add up to at
 * most `maxBytes`.
 *
 * @example
 * const keeper = createSnapshotKeeper(48 * 1024 * 1024);
 * keeper.keep(bytes, data);
 * keeper.kept(data.root, bytes) === data; // true
 */
export function createSnapshotKeeper(maxBytes = 0) {
  const kept = new Map<string, Kept>();
  const trim = (): void => {
    let total = 0;
    for (const entry of kept.values()) total += entry.weight;
    for (const [root, entry] of kept) {
      if (total <= maxBytes) break;
      kept.delete(root);
      total -= entry.weight;
    }
  };
  return {
    /** Whether this keeper keeps decoded snapshots (and so the walks rule units are recorded over). */
    keeps: (): boolean => maxBytes > 0,
    /** Drops every kept snapshot but `root`'s (a scan about to need the heap for another tree). */
    drop(root: string): void {
      for (const key of [...kept.keys()]) if (key !== root) kept.delete(key);
    },
    /** What `bytes` decode to, when this keeper was given exactly these bytes for `root` last. */
    kept(root: string, bytes: Uint8Array): ScanSnapshotData | undefined {
      const entry = kept.get(root);
      if (!entry || entry.bytes.byteLength !== bytes.byteLength) return undefined;
      if (!Buffer.from(entry.bytes.buffer, entry.bytes.byteOffset, entry.bytes.byteLength)
        .equals(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) return undefined;
      kept.delete(root);
      kept.set(root, entry); // the newest
      return entry.data;
    },
    /**
     * The bytes kept for `root` when their digest (`snapshotDigest`) is `digest`: a caller that sent them
     * before names them instead of sending them again. Undefined when this keeper holds others or none.
     */
    held(root: string, digest: string): Uint8Array | undefined {
      const entry = kept.get(root);
      return entry?.digest === digest ? entry.bytes : undefined;
    },
    /**
     * Remembers that `bytes` decode to `data` (the snapshot of `data.root`), which with what hangs off it (a
     * kept walk) holds about `weight` bytes of heap. @default weight: four times the encoded size
     */
    keep(bytes: Uint8Array, data: ScanSnapshotData, weight = bytes.byteLength * 4): void {
      if (maxBytes === 0) return;
      kept.delete(data.root);
      if (weight > maxBytes) return;
      // A copy: the caller's bytes may be a view into a buffer that is sent away (transferred) or reused.
      const copy = Uint8Array.prototype.slice.call(bytes);
      kept.set(data.root, { bytes: copy, data, weight, digest: snapshotDigest(copy) });
      trim();
    },
  };
}

export type SnapshotKeeper = ReturnType<typeof createSnapshotKeeper>;
