import type { Discover } from '../../scan/types.ts';

/** Test files of the JavaScript ecosystem's runners. (Placeholder until the JS rules land.) */
export const discoverJs: Discover = async () => [];
