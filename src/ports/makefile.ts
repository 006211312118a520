import type { ScanContext } from '../rules/types.ts';
import { readMakefile } from '../readers/makefile.ts';
import { pick, type PortRow } from './common.ts';
import { linePorts, scriptsBeside } from './scripts.ts';

/**
 * Ports in Makefile recipes (`run: ; python manage.py runserver 0.0.0.0:$(PORT)`), attributed to the
 * target. Simple variable definitions in the same file are substituted, so `PORT ?= 8000` resolves.
 */
export async function findMakefilePorts(ctx: ScanContext): Promise<PortRow[]> {
  const files = pick(ctx, (base) => base === 'Makefile' || base === 'makefile' || base === 'GNUmakefile');
  const perFile = await Promise.all(files.map(async (file) => {
    const text = await ctx.read(file);
    if (text === undefined) return [];
    // `dev: ; npm run dev` runs the package.json script beside the Makefile.
    const options = await scriptsBeside(ctx, file);
    return parseMakefile(text).flatMap(([target, command]) => linePorts(ctx, command, target, file, options));
  }));
  return perFile.flat();
}

/** `[target, recipe line]` pairs with `$(VAR)`/`${VAR}` replaced by the file's own simple definitions. */
export function parseMakefile(text: string): Array<[target: string, command: string]> {
  return readMakefile(text).flatMap((rule) => rule.recipe.map((line): [string, string] => [rule.target, line]));
}
