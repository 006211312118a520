/**
 * The order of writes on the store's own connection while a big save's last transaction runs in the apply
 * thread (applier.ts). That transaction holds the database's write lock for up to a second; a write on
 * this thread meanwhile would wait for it inside SQLite (`busy_timeout`), synchronously, and no request
 * (`/health` included) would be answered until it ends. Instead, a write that meets an apply in flight is
 * queued and run right after it, in the order writes came; a write with nothing in flight runs at once.
 */

interface Queued {
  readonly run: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export interface WriteGate {
  /**
   * Runs `fn` (synchronous writes) now when no apply holds the lock and no earlier write waits; else once
   * the last apply in flight has ended, after the writes queued before it. Settles with `fn`'s outcome.
   */
  write<T>(fn: () => T): Promise<T>;
  /**
   * Marks an apply in flight until `done` settles (set synchronously, before the thread can begin its
   * transaction). Writes queued meanwhile run, in order, as soon as no apply is left.
   */
  hold<T>(done: Promise<T>): Promise<T>;
  /** True while an apply is in flight or writes wait for one. */
  readonly busy: () => boolean;
}

export function createWriteGate(): WriteGate {
  let held = 0;
  const queue: Queued[] = [];

  const drain = (): void => {
    // One after another in this same turn: nothing can start an apply in between (applies start from here).
    while (held === 0 && queue.length > 0) {
      const next = queue.shift()!;
      try {
        next.resolve(next.run());
      } catch (error) {
        next.reject(error);
      }
    }
  };

  return {
    write<T>(fn: () => T): Promise<T> {
      if (held === 0 && queue.length === 0) {
        try {
          return Promise.resolve(fn());
        } catch (error) {
          return Promise.reject(error);
        }
      }
      return new Promise<T>((resolve, reject) => {
        queue.push({ run: fn, resolve: resolve as (value: unknown) => void, reject });
      });
    },
    hold<T>(done: Promise<T>): Promise<T> {
      held++;
      const release = (): void => { held--; drain(); };
      done.then(release, release);
      return done;
    },
    busy: () => held > 0 || queue.length > 0,
  };
}
