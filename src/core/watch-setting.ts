/**
 * Watch mode as the server runs it (watch.ts does the watching): forced on or off by the server
 * option, or following the `watch` setting while the server runs.
 */
import { WATCH_ON as ON } from './setting-keys.ts';
import { survive } from './survive.ts';
import { startWatching, type WatchOptions, type Watching } from './watch.ts';

/**
 * Watch mode as the server runs it: on when `force` is true; when `force` is undefined, on while the
 * `watch` setting says `on` (checked on `settings.changed` and every `syncMs`). A failed check (the
 * database busy or gone for a moment) is logged and tried again on the next tick.
 */
export function watchController(options: WatchOptions & { readonly force?: boolean }) {
  const { store, events, force, syncMs = 2000, logger = console } = options;
  let watching: Watching | undefined;
  const apply = survive(logger, 'watch setting', (): void => {
    const want = force ?? ON.test(store.getSettings().watch ?? '');
    if (want && !watching) watching = startWatching(options);
    else if (!want && watching) { void watching.close(); watching = undefined; }
  });
  apply();
  const timer = force === undefined ? setInterval(apply, syncMs) : undefined;
  timer?.unref();
  const off = force === undefined ? events.subscribe((e) => { if (e.type === 'settings.changed') apply(); }) : () => {};
  return {
    status: () => watching?.status() ?? null,
    async close(): Promise<void> {
      clearInterval(timer);
      off();
      await watching?.close();
      watching = undefined;
    },
  };
}
