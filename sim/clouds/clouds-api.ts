import { Agent } from 'node:http';
import { readCredentials } from '../../cloud/apiserver/auth/credentials.js';
import { createLoopbackClient } from '../../cloud/apiserver/loopback-client.js';
import { remoteHandler } from '../../cloud/apiserver/http/remote-handler.js';
import type { ApiHandler } from '../../cloud/apiserver/request.js';
import type { ApiClient } from '../../cloud/client/client.js';
import { isKedgeError } from '../../shared/errors.js';

/**
 * One ApiHandler over several clouds' APIs, as a kubeconfig with several servers would be
 * used: a request that reaches no apiserver (a killed cloud) goes to the next, and the one
 * that answered is tried first from then on. An answer, even an error status, is final. A
 * write cut off mid-way by a kill may have been applied: its retry may then find it done
 * (AlreadyExists, Conflict), as a kubectl retried by hand would.
 */
export function failoverHandler(apiUrls: readonly string[], agent: Agent): ApiHandler {
  const handlers = apiUrls.map((url) => remoteHandler(url, agent));
  let first = 0;
  return async (req) => {
    for (let tried = 0; ; tried++) {
      const at = (first + tried) % handlers.length;
      try {
        const res = await handlers[at]!(req);
        first = at;
        return res;
      } catch (err) {
        if (!isKedgeError(err, 'Unavailable') || tried + 1 >= handlers.length) throw err;
      }
    }
  };
}

export interface CloudsApi {
  readonly api: ApiClient;
  close(): void;
}

/** An admin ApiClient over every cloud's API (the clouds share the cluster's admin token). */
export async function cloudsApi(apiUrls: readonly string[], dataDir: string): Promise<CloudsApi> {
  const token = (await readCredentials(dataDir))?.admin;
  if (!token) throw new Error(`no admin token in ${dataDir}`);
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  return { api: createLoopbackClient(failoverHandler(apiUrls, agent), token), close: () => agent.destroy() };
}
