import type { Server } from 'node:http';

/** The CLI's port range: the first free one is taken. */
export const DEFAULT_PORTS: readonly number[] = Array.from({ length: 10 }, (_, i) => 38124 + i);

/** Error thrown when every candidate port is taken; `code` is `EADDRINUSE`, `ports` the range tried. */
export class PortsInUseError extends Error {
  readonly code = 'EADDRINUSE';
  readonly ports: readonly number[];
  constructor(ports: readonly number[], host: string) {
    super(ports.length > 1
      ? `Every port of ${ports[0]}..${ports.at(-1)} on ${host} is in use; `
        + 'choose another with --port N (0 picks any free port).'
      : `Port ${ports[0]} on ${host} is in use by another program; `
        + 'choose another with --port N (0 picks any free port).');
    this.name = 'PortsInUseError';
    this.ports = ports;
  }
}

/**
 * Listens on the first of `ports` that is free, by trying each in turn on the real server: there is no
 * probe-then-listen gap for another process to slip into. Resolves with the port taken (the real one
 * when a candidate is 0).
 *
 * @example
 * const port = await listen(server, { ports: [38124, 38125], host: '127.0.0.1' });
 */
export async function listen(
  server: Server,
  { ports = [0] as readonly number[], host = '127.0.0.1' } = {},
): Promise<number> {
  for (const candidate of ports) {
    try {
      await new Promise<void>((resolve, reject) => {
        const onError = (error: Error): void => { server.off('listening', onListening); reject(error); };
        const onListening = (): void => { server.off('error', onError); resolve(); };
        server.once('error', onError);
        server.once('listening', onListening);
        server.listen(candidate, host);
      });
      const address = server.address();
      return typeof address === 'object' && address ? address.port : candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
  throw new PortsInUseError(ports, host);
}
