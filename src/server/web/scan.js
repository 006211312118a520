// Starting scans. Progress arrives as live events (state.scanning); the answer settles the row.
import { api } from './api.js';
import { toast } from './dom.js';
import { changed, refreshOverview, state } from './state.js';

export async function scanOne(p, { quiet = false } = {}) {
  if (!state.scanning.has(p.id)) state.scanning.set(p.id, { files: 0, tests: 0 });
  changed('scan', p.id);
  try {
    const result = await api('POST', `/api/projects/${p.id}/scan`);
    if (state.projects.has(p.id)) state.projects.set(p.id, result.project); // Not if deleted meanwhile.
    if (!quiet) {
      toast(`${p.name}: ${result.testsFound} test files`
        + `${result.truncated ? ` (stopped early: ${result.truncated})` : ''}`);
    }
    return result;
  } catch (error) {
    toast(`Scan of ${p.name} failed: ${error.message}`, 'error');
    return null;
  } finally {
    state.scanning.delete(p.id);
    changed('scan', p.id);
    refreshOverview();
  }
}

/** Scans every project, a few at a time, so each row shows its own progress and the slow ones don't block. */
let scanningAll = false;

export async function scanAll() {
  if (scanningAll) return;
  scanningAll = true;
  const queue = [...state.projects.values()];
  const button = document.getElementById('scan-all');
  button?.setAttribute('aria-disabled', 'true');
  let failed = 0;
  const worker = async () => {
    for (let p = queue.shift(); p; p = queue.shift()) if (!(await scanOne(p, { quiet: true }))) failed++;
  };
  const total = queue.length;
  await Promise.all([worker(), worker(), worker()]);
  scanningAll = false;
  button?.removeAttribute('aria-disabled');
  toast(`Scanned ${total - failed} of ${total} projects${failed ? `, ${failed} failed` : ''}`,
    failed ? 'error' : 'info');
}
