/**
 * The dashboard's session: handed to the page in a meta element right after a login link was
 * spent (cloud/dashboard/pages.ts), then kept in this origin's localStorage, which, unlike a
 * cookie, no other port of this host can read. Sent as the bearer token of every API call.
 */
const SESSION_KEY = 'kedge-session';

/** Keeps a session the page was just handed, and takes the spent login token out of the address bar (and the history). */
export function adoptSession(): void {
  const meta = document.querySelector<HTMLMetaElement>(`meta[name="${SESSION_KEY}"]`);
  if (meta) {
    localStorage.setItem(SESSION_KEY, meta.content);
    meta.remove();
  }
  const url = new URL(location.href);
  if (!url.searchParams.has('token')) return;
  url.searchParams.delete('token');
  history.replaceState(null, '', url.pathname + url.search + url.hash);
}

/** The Authorization header for the session, or none without one (the API then answers 401). */
export function sessionHeaders(): Record<string, string> {
  const session = localStorage.getItem(SESSION_KEY);
  return session ? { authorization: `Bearer ${session}` } : {};
}

/** The cloud no longer knows the session (it ended, or the cloud restarted): a new link is needed. */
export function forgetSession(): void {
  localStorage.removeItem(SESSION_KEY);
}
