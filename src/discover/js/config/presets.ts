/**
 * Built-in knowledge of well-known Jest presets, for when the preset is not installed (or is installed
 * but computes its values at run time, which a static read cannot follow). Only the keys that decide
 * which files Jest runs are kept (testMatch, testRegex, roots, testPathIgnorePatterns,
 * moduleFileExtensions); transforms, environments and setup files do not change the list. Each entry
 * names the source it was read from.
 */
import type { Lit } from '../../../readers/js/literal.ts';

export interface KnownPreset {
  /** The preset's discovery keys (an empty object: it sets none of them). */
  readonly config: { readonly [key: string]: Lit };
  /** Where this knowledge comes from (package version or commit read). */
  readonly from: string;
}

// ts-jest 29.4.15 (dist/presets/create-jest-preset.js, read from an installed copy): every preset,
// `ts-jest` itself and `ts-jest/presets/*`, sets only `transform` (and `extensionsToTreatAsEsm` for ESM).
const TS_JEST: KnownPreset = { config: {}, from: 'ts-jest 29.4 (presets set only transform)' };
// jest-preset-angular (src/presets/utils.ts at commit 887ce01, create-cjs-preset.ts at 552922e):
// basePresetConfig sets moduleFileExtensions ts, html, js, json, mjs; no testMatch.
const ANGULAR: KnownPreset = {
  config: { moduleFileExtensions: ['ts', 'html', 'js', 'json', 'mjs'] },
  from: 'jest-preset-angular 14 (presets/utils.ts: moduleFileExtensions only)',
};
// react-native (packages/react-native/jest-preset.js at commit 0ca1927): haste, transform,
// transformIgnorePatterns, setupFiles, testEnvironment; nothing about discovery. jest-expo's main preset
// (packages/jest-expo/jest-preset.js at 0489038) derives from it and adds transforms and setup files.
const REACT_NATIVE: KnownPreset = { config: {}, from: 'react-native 0.7x (jest-preset.js sets no discovery keys)' };
const JEST_EXPO: KnownPreset = { config: {}, from: 'jest-expo (jest-preset.js derives from react-native\'s; no discovery keys)' };

// jest-expo's platform presets (config/getPlatformPreset.js at 022c25c): testMatch for the platform's
// extensions plus the bare one, `/__tests__/_rsc/` ignored. moduleFileExtensions come from
// @expo/config's getBareExtensions (`ios.ts`, ..., `ts`, `tsx`, `js`, `jsx`, `json`): the last part of
// each is what decides here.
function expoPlatform(name: string, exts: readonly string[]): KnownPreset {
  const testMatch = ['', ...exts].flatMap((e) => {
    const p = e ? `.${e}` : '';
    return [`**/__tests__/**/*spec${p}.[jt]s?(x)`, `**/__tests__/**/*test${p}.[jt]s?(x)`, `**/?(*.)+(spec|test)${p}.[jt]s?(x)`];
  });
  return {
    config: { testMatch, testPathIgnorePatterns: ['/node_modules/', '/__tests__/_rsc/'], moduleFileExtensions: ['ts', 'tsx', 'js', 'jsx', 'json'] },
    from: `jest-expo/${name} (config/getPlatformPreset.js)`,
  };
}

// @vue/cli-plugin-unit-jest (presets/default/jest-preset.js at commit 3d27f42; the typescript presets
// add ts and tsx to moduleFileExtensions).
const VUE_MATCH = ['**/tests/unit/**/*.spec.[jt]s?(x)', '**/__tests__/*.[jt]s?(x)'];
const VUE: KnownPreset = { config: { testMatch: VUE_MATCH, moduleFileExtensions: ['js', 'jsx', 'json', 'vue'] }, from: '@vue/cli-plugin-unit-jest 5' };
const VUE_TS: KnownPreset = {
  config: { testMatch: VUE_MATCH, moduleFileExtensions: ['js', 'jsx', 'json', 'vue', 'ts', 'tsx'] },
  from: '@vue/cli-plugin-unit-jest 5 (typescript preset)',
};
// Kept from the previous session's reading: environment and global setup only.
const ENV_ONLY: KnownPreset = { config: {}, from: 'its jest-preset.json (globalSetup and testEnvironment only)' };

const BY_NAME: Record<string, KnownPreset> = {
  'ts-jest': TS_JEST,
  'jest-preset-angular': ANGULAR,
  'jest-preset-angular/presets/defaults': ANGULAR,
  'jest-preset-angular/presets/defaults-esm': ANGULAR,
  'react-native': REACT_NATIVE,
  'jest-expo': JEST_EXPO,
  'jest-expo/ios': expoPlatform('ios', ['ios', 'native']),
  'jest-expo/android': expoPlatform('android', ['android', 'native']),
  'jest-expo/web': expoPlatform('web', ['web']),
  'jest-expo/node': expoPlatform('node', ['node', 'web']),
  '@vue/cli-plugin-unit-jest': VUE,
  '@vue/cli-plugin-unit-jest/presets/default': VUE,
  '@vue/cli-plugin-unit-jest/presets/no-babel': VUE,
  '@vue/cli-plugin-unit-jest/presets/typescript': VUE_TS,
  '@vue/cli-plugin-unit-jest/presets/typescript-and-babel': VUE_TS,
  'jest-puppeteer': ENV_ONLY,
};

/** What projdex knows of Jest preset `name`, or undefined. */
export function knownJestPreset(name: string): KnownPreset | undefined {
  if (Object.hasOwn(BY_NAME, name)) return BY_NAME[name];
  if (/^ts-jest\/presets\/[\w-]+$/.test(name)) return TS_JEST;
  if (/^@shelf\/jest-[\w-]+$/.test(name)) return ENV_ONLY;
  if (/^@(nx|nrwl)\/jest\/preset$/.test(name)) return { config: NX_JEST, from: 'Nx\'s @nx/jest/preset (jest-preset.ts)' };
  return undefined;
}

/**
 * kcd-scripts' Jest config (kcd-scripts src/config/jest.config.js, read by the previous session): its
 * installed source computes roots and environments from the project's files at run time.
 */
export const KCD_JEST: { [key: string]: Lit } = {
  roots: ['<rootDir>/src'],
  moduleFileExtensions: ['js', 'jsx', 'json', 'ts', 'tsx'],
  testMatch: ['**/__tests__/**/*.+(js|jsx|ts|tsx)'],
  testPathIgnorePatterns: ['/node_modules/', '/fixtures/', '/__tests__/helpers/', '__mocks__'],
};

// Nx's Jest preset (nrwl/nx packages/jest/preset/jest-preset.ts at commit 070ea86), required by nearly
// every Nx workspace's jest.preset.js as `require('@nx/jest/preset').default`. Note: no tsx/jsx.
const NX_JEST: { [key: string]: Lit } = {
  testMatch: ['**/?(*.)+(spec|test).[jt]s?(x)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'html'],
};
const NX_MODULE: Lit = { ...NX_JEST, default: NX_JEST, nxPreset: NX_JEST };

/**
 * Modules a config imports or requires whose value projdex knows, by specifier: the evaluator uses these
 * instead of reading node_modules, because their installed sources compute their values at run time.
 */
export const KNOWN_MODULES: Readonly<Record<string, Lit>> = {
  'kcd-scripts/jest': KCD_JEST,
  'kcd-scripts/dist/config/jest.config': KCD_JEST,
  '@nx/jest/preset': NX_MODULE,
  '@nrwl/jest/preset': NX_MODULE,
};
