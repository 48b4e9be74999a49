import { isKedgeError } from '../../../shared/errors.js';
import type { Logger } from '../../../shared/log.js';
import type { Endpoints } from '../../../shared/service-types.js';
import type { ApiClient } from '../../client/client.js';
import type { EventRecorder } from '../events.js';
import type { EndpointsAction, EndpointsKey } from './plan.js';

export interface ApplyDeps {
  api: ApiClient;
  events: EventRecorder;
  logger: Logger;
}

/** The Endpoints as stored now, or undefined. */
export async function currentEndpoints(api: ApiClient, key: EndpointsKey): Promise<Endpoints | undefined> {
  try {
    return await api.get<Endpoints>({ resource: 'endpoints', ...key });
  } catch (err) {
    if (isKedgeError(err, 'NotFound')) return undefined;
    throw err;
  }
}

/** Writes the plan. A failed create or update is an Event on the Endpoints and a retry; a missing one is already deleted. */
export async function applyEndpoints(deps: ApplyDeps, actions: readonly EndpointsAction[]): Promise<void> {
  for (const action of actions) {
    if (action.type === 'delete') await deleteEndpoints(deps.api, { namespace: action.namespace, name: action.name });
    else await write(deps, action.type, action.endpoints);
  }
}

async function write(deps: ApplyDeps, type: 'create' | 'update', endpoints: Endpoints): Promise<void> {
  const { namespace = '', name = '' } = endpoints.metadata;
  try {
    if (type === 'create') await deps.api.create({ resource: 'endpoints', namespace }, endpoints);
    else await deps.api.replace({ resource: 'endpoints', namespace, name }, endpoints);
  } catch (err) {
    // A terminating namespace refuses new objects: nothing to retry.
    if (type === 'create' && isKedgeError(err, 'Forbidden')) return deps.logger.info('not creating endpoints', { namespace, name, error: String(err) });
    const [reason, message] = type === 'create'
      ? ['FailedToCreateEndpoint', `Failed to create endpoint for service ${namespace}/${name}: ${String(err)}`]
      : ['FailedToUpdateEndpoint', `Failed to update endpoint ${namespace}/${name}: ${String(err)}`];
    deps.events.record(endpoints, 'Warning', reason, message);
    throw err;
  }
}

async function deleteEndpoints(api: ApiClient, key: EndpointsKey): Promise<void> {
  try {
    await api.delete({ resource: 'endpoints', ...key });
  } catch (err) {
    if (!isKedgeError(err, 'NotFound')) throw err;
  }
}
