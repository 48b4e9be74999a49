import type { Clock } from '../../../shared/clock.js';
import type { UserInfo } from '../auth/authn.js';
import type { KubeObject } from '../../../shared/types.js';
import type { Store } from '../../store/store.js';
import type { ResourcePath } from './paths.js';
import type { ResourceDef } from '../kinds/registry.js';
import type { ApiRequest } from '../request.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { HubForward } from '../forward/hub-forward.js';
import type { PodLogSource } from '../subresources/pod-log.js';
import type { ObjectStorage } from './storage.js';
import type { SchemaSource } from '../schemas/field-validation.js';
import type { FieldOwnership } from '../fields/field-ownership.js';

/** What every verb handler receives: the collaborators and the request, already routed. */
export interface RestDeps {
  store: Store;
  storage: ObjectStorage;
  clock: Clock;
  /** Container logs from the edges (absent: pods/log answers Unavailable). */
  podLogs?: PodLogSource;
  /** On a standby cloud: the hub's leader, which serves pods' logs instead. */
  hubForward?: HubForward;
  /** A number in [0, 1): spreads the ends of watches that name no timeout. */
  random: () => number;
  /** The kinds' schemas, for fieldValidation and typed validation on writes (absent: not judged). */
  schemas?: SchemaSource;
  /** managedFields on writes, and server-side apply's ownership. */
  fields: FieldOwnership;
}

export interface ResourceCall {
  def: ResourceDef;
  path: ResourcePath;
  req: ApiRequest;
  /** Who asks, as authentication established it. */
  user: UserInfo;
}

/** The label and field selectors of a list or watch as one predicate over objects. */
export function selectorOf(call: ResourceCall): (obj: KubeObject) => boolean {
  const labelText = call.req.query.get('labelSelector');
  const fieldText = call.req.query.get('fieldSelector');
  // The common case (every informer): no selector, nothing to work out per object.
  if (!labelText && !fieldText) return () => true;
  const labels = parseLabelSelector(labelText);
  const fieldValues = (obj: KubeObject): Record<string, string> => {
    const base: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
    if (call.def.namespaced) base['metadata.namespace'] = obj.metadata.namespace ?? '';
    return { ...base, ...(call.def.strategy?.fields?.(obj) ?? {}) };
  };
  const known = Object.keys(fieldValues(emptyObject(call.def)));
  const fields = parseFieldSelector(fieldText, known);
  return (obj) => labels(obj.metadata.labels ?? {}) && fields(fieldValues(obj));
}

function emptyObject(def: ResourceDef): KubeObject {
  return { kind: def.kind, metadata: {} };
}
