/**
 * Work started by a timer or an event has no caller to hand an error to: thrown there, it ends the server.
 * Such work goes through `survive`, which logs the error and lets the next tick try again. A database that
 * is locked or full for a moment must not take the service down with it.
 */

/** Where a survived error is told. */
export interface SurviveLogger {
  error(...args: unknown[]): void;
}

/**
 * `work` wrapped so a throw (or a rejection) is logged with `what`, never raised.
 *
 * @example
 * setInterval(survive(logger, 'watch: project sync', sync), 2000);
 */
export function survive<A extends unknown[]>(logger: SurviveLogger, what: string, work: (...args: A) => unknown) {
  return (...args: A): void => {
    try {
      const out = work(...args);
      if (out instanceof Promise) out.catch((error: unknown) => logger.error(`${what} failed:`, error));
    } catch (error) {
      logger.error(`${what} failed:`, error);
    }
  };
}
