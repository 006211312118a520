/**
 * Decoded snapshots a scan process keeps between scans. The server stores a snapshot as bytes and sends
 * them back with the next scan of the project; decoding them again (inflate, deserialise, index) costs an
 * unchanged 100k-file rescan about a sixth of its time. A process that encoded or decoded those very bytes
 * keeps what they decode to, and takes it when the same bytes come back (compared whole, never trusted by
 * a name or a generation). A keeper of 0 bytes keeps nothing: a library caller's heap keeps nothing.
 */
import type { ScanSnapshotData } from './snapshot.ts';

interface Kept { readonly bytes: Uint8Array; readonly data: ScanSnapshotData; readonly weight: number }

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
     * Remembers that `bytes` decode to `data` (the snapshot of `data.root`), which with what hangs off it (a
     * kept walk) holds about `weight` bytes of heap. @default weight: four times the encoded size
     */
    keep(bytes: Uint8Array, data: ScanSnapshotData, weight = bytes.byteLength * 4): void {
      if (maxBytes === 0) return;
      kept.delete(data.root);
      if (weight > maxBytes) return;
      // A copy: the caller's bytes may be a view into a buffer that is sent away (transferred) or reused.
      kept.set(data.root, { bytes: Uint8Array.prototype.slice.call(bytes), data, weight });
      trim();
    },
  };
}

export type SnapshotKeeper = ReturnType<typeof createSnapshotKeeper>;
