import type { CliIo, Values } from './types.ts';

/** What a command prints to, and the options it was given. */
export interface Out { readonly io: CliIo; readonly values: Values }

export const print = ({ io }: Out, line = ''): void => { io.stdout.write(`${line}\n`); };
export const json = ({ io }: Out, value: unknown): void => {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};
