import { LOGIN_TOKENS_PATH } from '../cloud/dashboard/dashboard-api.js';

/** The cloud's API URL over plain http (it answers both on one port): what a browser opens without a certificate warning. */
export function plainHttpUrl(apiUrl: string): URL {
  const url = new URL(apiUrl);
  url.protocol = 'http:';
  return url;
}

/** Asks the cloud, as admin, for a one-time login token: the dashboard's URL carrying it. */
export async function mintDashboardUrl(apiUrl: string, adminToken: string): Promise<string> {
  const base = plainHttpUrl(apiUrl);
  const res = await fetch(new URL(LOGIN_TOKENS_PATH, base), { method: 'POST', headers: { authorization: `Bearer ${adminToken}` } });
  const body = (await res.json()) as { path?: string; message?: string };
  if (!res.ok || typeof body.path !== 'string') throw new Error(`the cloud gave no dashboard login token: ${res.status} ${body.message ?? ''}`.trim());
  return new URL(body.path, base).href;
}
