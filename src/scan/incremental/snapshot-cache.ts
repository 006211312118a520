/**
 * Decoded snapshots a scan process keeps between scans. The server stores a snapshot as bytes and sends
 * them back with the next scan of the project; decoding them again (inflate, deserialise, index) costs an
 * unchanged 100k-file rescan about a sixth of its time. A process that encoded or decoded those very bytes
 * keeps what they decode to, and takes it when the same bytes come back (compared whole, never trusted by
 * a name or a generation). Off unless a scan process turns it on: a library caller's heap keeps nothing.
 */
import type { ScanSnapshotData } from './snapshot.ts';

interface Kept { readonly bytes: Uint8Array; readonly data: ScanSnapshotData; readonly weight: number }

const kept = new Map<string, Kept>();
let budget = 0;

/**
 * Keeps decoded snapshots, newest roots first, while their estimated heap sizes (see {@link keepSnapshot})
 * add up to at most `maxBytes`. 0 turns keeping off and drops what is kept.
 */
export function keepDecodedSnapshots(maxBytes: number): void {
  budget = maxBytes;
  trim();
}

/** Whether this process keeps decoded snapshots (and so the walks rule units are recorded over). */
export function keepsSnapshots(): boolean {
  return budget > 0;
}

/** Drops every kept snapshot but `root`'s (a scan about to need the heap for another tree). */
export function dropKeptSnapshots(root: string): void {
  for (const key of [...kept.keys()]) if (key !== root) kept.delete(key);
}

/** What `bytes` decode to, when this process encoded or decoded exactly these bytes for `root` last. */
export function keptSnapshot(root: string, bytes: Uint8Array): ScanSnapshotData | undefined {
  const entry = kept.get(root);
  if (!entry || entry.bytes.byteLength !== bytes.byteLength) return undefined;
  if (!Buffer.from(entry.bytes.buffer, entry.bytes.byteOffset, entry.bytes.byteLength)
    .equals(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) return undefined;
  kept.delete(root);
  kept.set(root, entry); // the newest
  return entry.data;
}

/**
 * Remembers that `bytes` decode to `data` (the snapshot of `data.root`), which with what hangs off it (a
 * kept walk) holds about `weight` bytes of heap. @default weight: four times the encoded size
 */
export function keepSnapshot(bytes: Uint8Array, data: ScanSnapshotData, weight = bytes.byteLength * 4): void {
  if (budget === 0) return;
  kept.delete(data.root);
  if (weight > budget) return;
  // A copy: the caller's bytes may be a view into a buffer that is sent away (transferred) or reused.
  kept.set(data.root, { bytes: Uint8Array.prototype.slice.call(bytes), data, weight });
  trim();
}

function trim(): void {
  let total = 0;
  for (const entry of kept.values()) total += entry.weight;
  for (const [root, entry] of kept) {
    if (total <= budget) break;
    kept.delete(root);
    total -= entry.weight;
  }
}
