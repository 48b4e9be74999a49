import { join, resolve } from 'node:path';
import { signedByAnotherCa } from '../shared/certificate-refused.js';
import { cliName } from '../shared/cli-name.js';

type CloudAccess = { server: string; token: string; ca?: string };

/** The cloud a data dir belongs to: its API server and admin token, from the kubeconfig it wrote. */
export async function cloudAccess(dataDir: string): Promise<CloudAccess> {
  const { readKubeconfig } = await import('../sim/fleet-pods.js');
  const { KUBECONFIG_FILE } = await import('../cloud/apiserver/auth/credentials.js');
  const dir = resolve(dataDir);
  const kubeconfig = join(dir, KUBECONFIG_FILE);
  return readKubeconfig(kubeconfig).catch(() => {
    throw new Error(`no kedge cloud found with data dir ${dir} (no readable ${kubeconfig}; start one with npm start or ${cliName()} cloud)`);
  });
}

/**
 * A cloud answered with a certificate the data dir's CA did not sign: another cloud, with a
 * data dir (and CA) of its own, listens at the address this one's kubeconfig names.
 */
export function anotherCloudError(dataDir: string, detail: string): Error {
  const dir = resolve(dataDir);
  return new Error(
    `${detail}: that is not the cloud of data dir ${dir} (its certificate is not signed by the CA in ${join(dir, 'kubeconfig')}). ` +
      `Another cloud, with a data dir and CA of its own, answers there (one started from another folder?): give its --data-dir, or stop it and start the cloud of ${dir}`,
  );
}

/** The access to the cloud of `dataDir` when it is running and answers /healthz; undefined otherwise. */
export async function runningCloud(dataDir: string): Promise<CloudAccess | undefined> {
  const access = await cloudAccess(dataDir).catch(() => undefined);
  const answers = access && (await requestAs(access, 'GET', '/healthz').then(() => true, () => false));
  return answers ? access : undefined;
}

/** One request to the running cloud of `dataDir`, as its kubeconfig's user: the JSON (or text) answer; failures name the problem. */
export async function cloudRequest(dataDir: string, method: 'GET' | 'POST', path: string): Promise<unknown> {
  return requestAs(await cloudAccess(dataDir), method, path, dataDir);
}

/** One request to the cloud at `access.server` as `access.token`'s user (see cloudRequest); `dataDir`: where the access came from. */
export async function requestAs(access: CloudAccess, method: 'GET' | 'POST', path: string, dataDir?: string): Promise<unknown> {
  const { remoteHandler } = await import('../cloud/apiserver/http/remote-handler.js');
  const handle = remoteHandler(access.server, undefined, access.ca);
  const res = await handle({ method, path, query: new URLSearchParams(), headers: { authorization: `Bearer ${access.token}`, accept: 'application/json' } }).catch((err: unknown) => {
    if (dataDir !== undefined && signedByAnotherCa(err)) throw anotherCloudError(dataDir, `the cloud at ${access.server} answers`);
    throw new Error(`the cloud at ${access.server} does not answer (is it running?)`);
  });
  const body = res.type === 'json' ? (res.body as { message?: string }) : res.type === 'text' ? res.body : {};
  if (res.status >= 400) throw new Error((typeof body === 'object' ? body.message : undefined) ?? `${method} ${path}: HTTP ${res.status}`);
  return body;
}

/** An ApiClient for the running cloud of `dataDir`, as its kubeconfig's user, over TLS checked against its CA. */
export async function cloudClient(dataDir: string): Promise<import('../cloud/client/client.js').ApiClient> {
  const { createRemoteClient } = await import('../cloud/apiserver/http/remote-handler.js');
  const access = await cloudAccess(dataDir);
  return createRemoteClient(access.server, access.token, access.ca);
}
