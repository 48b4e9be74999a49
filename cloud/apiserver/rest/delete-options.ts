import { KedgeError, type StatusCause } from '../../../shared/errors.js';
import type { PropagationPolicy } from '../../client/client.js';
import type { ApiRequest } from '../request.js';
import { decodeDeleteOptions } from '../http/request-body.js';

const policies: readonly string[] = ['Foreground', 'Background', 'Orphan'];

/** meta/v1 DeleteOptions as a DELETE request carries them. */
export interface DeleteRequestOptions {
  propagationPolicy?: PropagationPolicy;
  /** Deprecated: true is Orphan, false is Background (kept for old clients). */
  orphanDependents?: boolean;
  /** A pod's grace period (graceful.ts); other kinds go at once. */
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

/**
 * The options of a DELETE: from the body when it holds JSON DeleteOptions (what kubectl sends),
 * else from the query, as kube-apiserver's delete handler reads them. Badly typed values are
 * 400 BadRequest; a policy kube does not know, or both policy and orphanDependents, 422 Invalid.
 */
export function deleteOptionsOf(req: ApiRequest): DeleteRequestOptions {
  const body = decodeDeleteOptions(req);
  const options = body ? fromBody(body) : fromQuery(req.query);
  validate(options);
  return options;
}

/** DeleteOptions carried inside another body (an Eviction's deleteOptions), read and checked as a DELETE body's. */
export function deleteOptionsFrom(body: Record<string, unknown>): DeleteRequestOptions {
  const options = fromBody(body);
  validate(options);
  return options;
}

function fromBody(body: Record<string, unknown>): DeleteRequestOptions {
  const out: DeleteRequestOptions = {};
  const { propagationPolicy, orphanDependents, gracePeriodSeconds, preconditions } = body;
  if (propagationPolicy !== undefined && propagationPolicy !== null) out.propagationPolicy = typed(propagationPolicy, 'string', 'propagationPolicy') as PropagationPolicy;
  if (orphanDependents !== undefined && orphanDependents !== null) out.orphanDependents = typed(orphanDependents, 'boolean', 'orphanDependents') as boolean;
  if (gracePeriodSeconds !== undefined && gracePeriodSeconds !== null) out.gracePeriodSeconds = integer(typed(gracePeriodSeconds, 'number', 'gracePeriodSeconds') as number);
  if (preconditions !== undefined && preconditions !== null) out.preconditions = typed(preconditions, 'object', 'preconditions') as DeleteRequestOptions['preconditions'];
  return out;
}

function fromQuery(query: URLSearchParams): DeleteRequestOptions {
  const out: DeleteRequestOptions = {};
  const policy = query.get('propagationPolicy');
  if (policy) out.propagationPolicy = policy as PropagationPolicy;
  const orphan = query.get('orphanDependents');
  if (orphan) out.orphanDependents = parseBool(orphan);
  const grace = query.get('gracePeriodSeconds');
  if (grace) out.gracePeriodSeconds = integer(/^[-+]?\d+$/.test(grace) ? Number(grace) : NaN, grace);
  return out;
}

function validate(options: DeleteRequestOptions): void {
  const causes: StatusCause[] = [];
  const policy = options.propagationPolicy;
  if (policy !== undefined && options.orphanDependents !== undefined) {
    causes.push({ reason: 'FieldValueInvalid', field: 'propagationPolicy', message: `Invalid value: "${policy}": orphanDependents and deletionPropagation cannot be both set` });
  }
  if (policy !== undefined && !policies.includes(policy)) {
    causes.push({ reason: 'FieldValueNotSupported', field: 'propagationPolicy', message: `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan", "nil"` });
  }
  if (causes.length === 0) return;
  const summary = causes.map((c) => `${c.field}: ${c.message}`);
  throw new KedgeError('Invalid', `DeleteOptions.meta.k8s.io "" is invalid: ${summary.length === 1 ? summary[0] : `[${summary.join(', ')}]`}`, {
    details: { name: '', group: 'meta.k8s.io', kind: 'DeleteOptions', causes },
  });
}

function typed(value: unknown, type: 'string' | 'boolean' | 'number' | 'object', field: string): unknown {
  if (typeof value === type && !(type === 'object' && Array.isArray(value))) return value;
  throw new KedgeError('BadRequest', `json: cannot unmarshal ${typeof value} into Go struct field DeleteOptions.${field} of type ${type}`);
}

function integer(n: number, raw: unknown = n): number {
  if (Number.isSafeInteger(n)) return n;
  throw new KedgeError('BadRequest', `strconv.ParseInt: parsing ${JSON.stringify(String(raw))}: invalid syntax`);
}

/** strconv.ParseBool, as the query parameter codec reads booleans. */
export function parseBool(text: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  throw new KedgeError('BadRequest', `strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
}
