import type { Discover } from '../../scan/types.ts';

/** Test files of runners outside the JavaScript ecosystem. (Placeholder until those rules land.) */
export const discoverOthers: Discover = async () => [];
