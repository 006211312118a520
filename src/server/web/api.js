// The API client: same origin only, JSON in and out, the token (when the server asks for one) as a header.

const TOKEN_KEY = 'projdex.token';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** The token for this tab, or null. Kept in sessionStorage: gone when the tab closes, never in a URL. */
export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function authHeaders() {
  const t = token();
  return t ? { Authorization: `Bearer ${t}` } : {};
}

let asking;

/** Shows the token dialog once for all requests waiting on it; resolves when a new token is stored. */
export function askToken(refused = false) {
  asking ??= new Promise((resolve) => {
    const dialog = document.getElementById('token-dialog');
    const input = document.getElementById('token-input');
    document.getElementById('token-error').hidden = !refused;
    input.value = '';
    dialog.addEventListener('close', () => {
      const value = input.value.trim();
      if (value) sessionStorage.setItem(TOKEN_KEY, value);
      asking = undefined;
      resolve();
    }, { once: true });
    // The page is useless without it.
    dialog.addEventListener('cancel', (e) => e.preventDefault(), { once: true });
    dialog.showModal();
    input.focus();
  });
  return asking;
}

/**
 * Calls the API. Resolves with the parsed body (null for 204); rejects with ApiError carrying the
 * server's `error` text. A 401 asks for the token (unless it changed meanwhile) and retries.
 */
export async function api(method, path, body) {
  for (let attempt = 0; ; attempt++) {
    const sent = token();
    const headers = { ...authHeaders() };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store',
    });
    if (res.status === 401 && attempt < 5) {
      // Refused with a token that has since been replaced (the user answered the prompt while this request
      // was on its way): try the new one before asking again.
      if (token() === sent) await askToken(sent !== null);
      continue;
    }
    const text = await res.text();
    let data = null;
    try { data = text === '' ? null : JSON.parse(text); } catch { /* not JSON: reported below */ }
    if (!res.ok) throw new ApiError(res.status, data?.error ?? `HTTP ${res.status}`);
    return data;
  }
}

/** True for the answers of a route this server does not have (yet): 404 Not found or 405. */
export function missingRoute(error) {
  return error instanceof ApiError
    && (error.status === 405 || (error.status === 404 && error.message === 'Not found'));
}
