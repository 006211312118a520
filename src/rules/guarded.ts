/**
 * A rule that trips over a file it could not foresee (a reader past a limit it does not check) loses its
 * own rows, with a note: the rest of the scan goes on.
 *
 * @example
 * const rows = await guarded(ctx, 'discoverGo', () => discoverGo(ctx, index)); // [] and a note if it threw
 */
export async function guarded<R extends readonly unknown[]>(
  ctx: { note(message: string): void }, name: string, run: () => Promise<R>,
): Promise<R> {
  try {
    return await run();
  } catch (error) {
    const why = error instanceof RangeError ? 'a file nests or repeats past what it can follow'
      : error instanceof Error ? error.message : String(error);
    ctx.note(`${name.replace(/^discover/, '')} discovery failed and was skipped (${why.slice(0, 200)}): its tests are not listed`);
    return [] as unknown as R;
  }
}
