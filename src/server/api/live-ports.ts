import type { LiveReading } from '../../core/live/live-ports.ts';
import type { PortClaim } from './ports.ts';

/** Who holds a claimed port now: the holder's pid, command and registered project (null: none of them). */
export interface LiveHolder {
  readonly pid: number | null;
  readonly command: string | null;
  readonly project_id: number | null;
}

/** A port group of `GET /api/ports?live=1`: `live` null when nothing listens on the port now. */
export interface LivePortClaim extends PortClaim {
  readonly live: LiveHolder | null;
  /**
   * Why `live` is null or its holder unknown (no way to list sockets here, another user's process); else
   * null.
   */
  readonly live_note: string | null;
}

/**
 * Adds to each claimed port whether it is held now and by what. A port held on several addresses (IPv4 and
 * IPv6) names the first holder projdex could identify.
 *
 * @example
 * withLive(groupPorts(rows), await readLivePorts(projects));
 * // [{ port: 5173, ..., live: { pid: 4242, command: 'node vite', project_id: 3 }, live_note: null }]
 */
export function withLive(claims: readonly PortClaim[], reading: LiveReading): LivePortClaim[] {
  const unavailable = reading.available ? null : reading.notes.join('; ');
  return claims.map((claim) => {
    const held = reading.sockets.filter((s) => s.port === claim.port);
    const known = held.find((s) => s.pid !== null) ?? held[0];
    const live = known ? { pid: known.pid, command: known.command, project_id: known.project_id } : null;
    const hidden = 'held by a process projdex cannot see '
      + '(another user\'s, one outside this process namespace, or past the look-up budget)';
    const note = unavailable ?? (known && known.pid === null ? hidden : null);
    return { ...claim, live, live_note: note };
  });
}
