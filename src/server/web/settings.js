// Settings: view, add, edit and delete key/value pairs.
import { api, missingRoute } from './api.js';
import { confirmDialog, fill, h, toast } from './dom.js';
import { loadSettings, state, watch } from './state.js';

export function settingsView(main) {
  // key -> the value being typed; kept in the page's state so a live re-render keeps what was typed.
  const editing = new Map();
  const body = h('div', { id: 'settings-body' }, h('p', { class: 'muted', text: 'Loading settings…' }));

  const save = async (key, value) => {
    try {
      const saved = await api('PUT', `/api/settings/${encodeURIComponent(key)}`, { value });
      state.settings.set(saved.key, saved.value);
      editing.delete(key);
      toast(`Saved ${key}`);
      render();
      return true;
    } catch (error) {
      toast(`Could not save ${key}: ${error.message}`, 'error');
      return false;
    }
  };
  const remove = async (key) => {
    if (!(await confirmDialog(`Delete the setting “${key}”?`))) return;
    try {
      await api('DELETE', `/api/settings/${encodeURIComponent(key)}`);
      state.settings.delete(key);
      toast(`Deleted ${key}`);
      render();
    } catch (error) {
      toast(missingRoute(error)
        ? 'This server cannot delete settings (DELETE /api/settings/:key is missing): update projdex.'
        : `Could not delete ${key}: ${error.message}`, 'error');
    }
  };

  const stopEditing = (key) => { editing.delete(key); render(); };
  const row = (key, value) => {
    const name = h('th', { scope: 'row' }, h('code', { text: key }));
    if (editing.has(key)) {
      const input = h('input', {
        value: editing.get(key), 'aria-label': `Value of ${key}`, class: 'setting-input',
        onInput: (e) => editing.set(key, e.target.value),
      });
      const form = h('form', {
        class: 'inline-form',
        onSubmit: (e) => { e.preventDefault(); save(key, input.value); },
      }, input,
        h('button', { type: 'submit', class: 'primary', 'data-action': 'save', text: 'Save' }),
        h('button', {
          type: 'button', 'data-action': 'cancel', text: 'Cancel', onClick: () => stopEditing(key),
        }));
      setTimeout(() => {
        if (document.activeElement !== document.body) return; // the user is elsewhere
        input.focus();
        input.setSelectionRange(input.value.length, input.value.length);
      });
      return h('tr', { 'data-key': key }, name, h('td', {}, form), h('td'));
    }
    return h('tr', { 'data-key': key }, name, h('td', { class: 'value', text: value }),
      h('td', { class: 'actions' },
        h('button', {
          'data-action': 'edit', 'aria-label': `Edit ${key}`, text: 'Edit',
          onClick: () => {
            editing.set(key, value);
            render();
            body.querySelector(`tr[data-key="${CSS.escape(key)}"] input`)?.focus();
          },
        }),
        h('button', {
          'data-action': 'delete', class: 'danger', 'aria-label': `Delete ${key}`, text: 'Delete',
          onClick: () => remove(key),
        })));
  };

  const render = () => {
    if (!state.settings) return;
    const keys = [...state.settings.keys()].sort();
    fill(body, keys.length === 0 ? h('p', { class: 'muted', text: 'No settings yet.' })
      : h('div', { class: 'table-wrap' }, h('table', { id: 'settings-table' },
        h('thead', {}, h('tr', {},
          h('th', { scope: 'col', text: 'Key' }),
          h('th', { scope: 'col', text: 'Value' }),
          h('th', {}, h('span', { class: 'sr-only', text: 'Actions' })))),
        h('tbody', {}, keys.map((k) => row(k, state.settings.get(k)))))));
  };

  // The keys projdex itself reads (GET /api/setting-keys), with what each does; any other key is the
  // user's own.
  const known = h('section', { id: 'known-settings', 'aria-labelledby': 'known-title' });
  api('GET', '/api/setting-keys').then((keys) => fill(known,
    h('h2', { id: 'known-title', text: 'Keys projdex reads' }),
    h('dl', {}, keys.flatMap((k) => [
      h('dt', {}, h('code', { text: k.key })),
      h('dd', { text: `${k.description}. Values: ${k.values}.` }),
    ])),
    h('p', {
      class: 'muted',
      text: 'A value projdex cannot use for one of these is refused; any other key stores any text, '
        + 'for your own tools.',
    })),
  (error) => {
    if (!missingRoute(error)) toast(`Could not load the keys projdex reads: ${error.message}`, 'error');
  });
  const key = h('input', {
    id: 'setting-key', required: true, 'aria-label': 'New setting key', placeholder: 'key',
  });
  const value = h('input', { id: 'setting-value', 'aria-label': 'New setting value', placeholder: 'value' });
  fill(main, h('h1', { text: 'Settings' }),
    h('form', { class: 'inline-form', id: 'setting-form', onSubmit: async (e) => {
      e.preventDefault();
      if (await save(key.value.trim(), value.value)) { key.value = ''; value.value = ''; }
    } }, key, value, h('button', { type: 'submit', class: 'primary', text: 'Add setting' })),
    body, known);
  loadSettings().catch((error) => toast(`Could not load settings: ${error.message}`, 'error'));
  render();
  return watch((what) => { if (what === 'settings' || what === 'reset') render(); });
}
