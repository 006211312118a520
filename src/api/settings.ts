import { httpError } from '../http.ts';
import type { Events } from '../events.ts';
import type { Store } from '../store.ts';
import type { Context } from './context.ts';

/** Handlers of `/api/settings/**`. */
export function settingsHandlers(store: Store, events?: Events) {
  return {
    list: () => store.getSettings(),
    async put({ params, body }: Context) {
      const key = params.key ?? '';
      if (key.length > 1024 || !key.isWellFormed()) throw httpError(400, 'INVALID_KEY', 'Setting key must be 1 to 1024 characters of well-formed Unicode');
      const { value } = await body();
      if (value === undefined) throw httpError(400, 'VALUE_REQUIRED', 'Value is required');
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
        throw httpError(400, 'INVALID_VALUE', 'value must be a string, number or boolean');
      }
      const text = String(value);
      store.putSetting(key, text);
      events?.emit('settings.changed', { key, value: text });
      return { key, value: text };
    },
  };
}
