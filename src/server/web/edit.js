// The edit dialog of a project: name, description, framework, tags.
import { api } from './api.js';
import { h, splitTags, toast } from './dom.js';
import { changed, state } from './state.js';

/** Opens a modal form for `p`; resolves with the updated project, or null when cancelled. */
export function editProject(p) {
  const name = h('input', { id: 'edit-name', required: true, value: p.name });
  const description = h('textarea', { id: 'edit-description', rows: '3' });
  description.value = p.description ?? '';
  const framework = h('input', { id: 'edit-framework', value: p.framework ?? '' });
  const tags = h('input', { id: 'edit-tags', value: p.tags.join(', '), placeholder: 'web, api' });
  const error = h('p', { class: 'error', hidden: true, role: 'alert' });
  const dialog = h('dialog', { id: 'edit-dialog', 'aria-labelledby': 'edit-title' });
  const form = h('form', { method: 'dialog' },
    h('h2', { id: 'edit-title', text: `Edit ${p.name}` }),
    h('label', {}, 'Name', name),
    h('label', {}, 'Description', description),
    h('label', {}, 'Framework', framework),
    h('label', {}, 'Tags (comma separated)', tags),
    error,
    h('div', { class: 'actions' },
      h('button', { type: 'button', id: 'edit-cancel', text: 'Cancel', onClick: () => dialog.close() }),
      h('button', { type: 'submit', class: 'primary', id: 'edit-save', text: 'Save' })));
  dialog.append(form);
  document.body.append(dialog);
  return new Promise((resolve) => {
    let result = null;
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const body = {
        name: name.value.trim(),
        description: description.value.trim() === '' ? null : description.value.trim(),
        framework: framework.value.trim() === '' ? null : framework.value.trim(),
        tags: splitTags(tags.value),
      };
      try {
        result = await api('PUT', `/api/projects/${p.id}`, body);
        state.projects.set(result.id, result);
        changed('project', result.id);
        toast(`Saved ${result.name}`);
        dialog.close();
      } catch (err) {
        error.textContent = err.message;
        error.hidden = false;
      }
    });
    dialog.addEventListener('close', () => { dialog.remove(); resolve(result); });
    dialog.showModal();
    name.focus();
  });
}
