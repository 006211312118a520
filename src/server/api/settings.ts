import { httpError } from '../http.ts';
import { KNOWN_SETTINGS, settingProblem } from '../../core/setting-keys.ts';
import type { Events } from '../../core/events.ts';
import type { Store } from '../../core/store/store.ts';
import type { Context } from './context.ts';

/** Longest setting value an event carries; a longer one is announced by its `size` only. */
const EVENT_VALUE_CHARS = 1024;

/** Handlers of `/api/settings/**`. */
export function settingsHandlers(store: Store, events?: Events) {
  const keyOf = ({ params }: Context): string => {
    const key = params.key ?? '';
    if (key.length > 1024 || !key.isWellFormed()) {
      throw httpError(400, 'INVALID_KEY', 'Setting key must be 1 to 1024 characters of well-formed Unicode');
    }
    return key;
  };
  const notFound = (): never => { throw httpError(404, 'SETTING_NOT_FOUND', 'Setting not found'); };
  return {
    list: () => store.getSettings(),
    keys: () => KNOWN_SETTINGS.map(({ key, description, values }) => ({ key, description, values })),
    get(ctx: Context) {
      const key = keyOf(ctx);
      const value = store.getSetting(key);
      return value === undefined ? notFound() : { key, value };
    },
    async remove(ctx: Context) {
      const key = keyOf(ctx);
      if (!await store.write(() => store.deleteSetting(key))) notFound();
      events?.emit('settings.changed', { key, value: null });
      return null;
    },
    async put(ctx: Context) {
      const { body } = ctx;
      const key = keyOf(ctx);
      const { value } = await body();
      if (value === undefined) throw httpError(400, 'VALUE_REQUIRED', 'Value is required');
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
        throw httpError(400, 'INVALID_VALUE', 'value must be a string, number or boolean');
      }
      if (typeof value === 'string' && !value.isWellFormed()) {
        throw httpError(400, 'INVALID_VALUE', 'value must be well-formed Unicode');
      }
      const text = String(value);
      const problem = settingProblem(key, text);
      if (problem) throw httpError(400, 'INVALID_VALUE', problem);
      await store.write(() => store.putSetting(key, text));
      // A long value is not carried: the event says what to refetch (the replay buffer holds 1000 events).
      events?.emit('settings.changed', text.length <= EVENT_VALUE_CHARS
        ? { key, value: text }
        : { key, size: text.length });
      return { key, value: text };
    },
  };
}
