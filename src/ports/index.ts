import type { FindPorts } from '../scan/types.ts';

/** Ports named by a project's scripts and config files. (Placeholder until the port finders land.) */
export const findPorts: FindPorts = async () => [];
