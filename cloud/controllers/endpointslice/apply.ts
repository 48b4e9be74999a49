import {
  DISCOVERY_GROUP,
  ENDPOINTSLICE_CONTROLLER_NAME,
  MANAGED_BY_LABEL,
  SERVICE_NAME_LABEL,
  type EndpointSlice,
} from '../../../shared/cluster-object-types.js';
import { isKedgeError } from '../../../shared/errors.js';
import type { Logger } from '../../../shared/log.js';
import type { ApiClient } from '../../client/client.js';
import type { EventRecorder } from '../events.js';
import type { SliceAction } from './plan.js';

export interface ApplyDeps {
  api: ApiClient;
  events: EventRecorder;
  logger: Logger;
}

const slicesOf = (namespace: string, name?: string) => ({ resource: 'endpointslices', group: DISCOVERY_GROUP, namespace, ...(name !== undefined && { name }) });

/** The label selector of a Service's slices that this controller manages. */
export const managedSlicesSelector = (service: string): string => `${SERVICE_NAME_LABEL}=${service},${MANAGED_BY_LABEL}=${ENDPOINTSLICE_CONTROLLER_NAME}`;

/** The slices of a Service as stored now (read from the API, so a slice just created is never created twice). */
export async function currentSlices(api: ApiClient, namespace: string, service: string): Promise<EndpointSlice[]> {
  return (await api.list<EndpointSlice>(slicesOf(namespace), { labelSelector: managedSlicesSelector(service) })).items;
}

/** Writes the plan. A failed write is an Event on the slice and a retry; a slice already gone is deleted. */
export async function applySlices(deps: ApplyDeps, actions: readonly SliceAction[]): Promise<void> {
  for (const action of actions) {
    if (action.type === 'delete') await deleteSlice(deps.api, action.namespace, action.name);
    else await write(deps, action.type, action.slice);
  }
}

async function write(deps: ApplyDeps, type: 'create' | 'update', slice: EndpointSlice): Promise<void> {
  const { namespace = '', name } = slice.metadata;
  try {
    if (type === 'create') await deps.api.create(slicesOf(namespace), slice);
    else await deps.api.replace(slicesOf(namespace, name), slice);
  } catch (err) {
    // A terminating namespace refuses new objects: nothing to retry.
    if (type === 'create' && isKedgeError(err, 'Forbidden')) return deps.logger.info('not creating endpointslice', { namespace, service: slice.metadata.labels?.[SERVICE_NAME_LABEL], error: String(err) });
    deps.events.record(slice, 'Warning', 'FailedToUpdateEndpointSlices', `Error updating Endpoint Slices for Service ${namespace}/${slice.metadata.labels?.[SERVICE_NAME_LABEL] ?? ''}: ${String(err)}`);
    throw err;
  }
}

async function deleteSlice(api: ApiClient, namespace: string, name: string): Promise<void> {
  try {
    await api.delete(slicesOf(namespace, name));
  } catch (err) {
    if (!isKedgeError(err, 'NotFound')) throw err;
  }
}
