import { KedgeError, type StatusCause } from '../../../shared/errors.js';
import { parseBool } from './delete-options.js';

/** The list and watch query parameters (metav1.ListOptions) that decide what a read returns and from when. */
export interface ListQuery {
  /** 0: no limit. */
  limit: number;
  continueToken?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /** Only when the parameter is present (true or false). */
  sendInitialEvents?: boolean;
}

export function listQueryOf(q: URLSearchParams): ListQuery {
  const out: ListQuery = { limit: integer(q.get('limit')) };
  const set = <K extends keyof ListQuery>(key: K, value: ListQuery[K] | undefined): void => {
    if (value !== undefined) out[key] = value;
  };
  set('continueToken', q.get('continue') || undefined);
  set('resourceVersion', q.get('resourceVersion') || undefined);
  set('resourceVersionMatch', q.get('resourceVersionMatch') || undefined);
  const initial = q.get('sendInitialEvents');
  set('sendInitialEvents', initial === null || initial === '' ? undefined : parseBool(initial));
  return out;
}

const forbidden = (message: string, field = 'resourceVersionMatch'): StatusCause => ({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${message}` });
const notSupported = (value: string, supported: string[]): StatusCause => ({
  reason: 'FieldValueNotSupported',
  field: 'resourceVersionMatch',
  message: `Unsupported value: "${value}": supported values: ${supported.map((s) => `"${s}"`).join(', ')}`,
});

/** kube's ValidateListOptions for a list: 422 Invalid ListOptions naming each mistake. */
export function validateListQuery(query: ListQuery): void {
  const causes: StatusCause[] = [];
  const match = query.resourceVersionMatch;
  if (match !== undefined) {
    if (query.resourceVersion === undefined) causes.push(forbidden('resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (query.continueToken !== undefined) causes.push(forbidden('resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') causes.push(notSupported(match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && query.resourceVersion === '0') causes.push(forbidden('resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (query.sendInitialEvents !== undefined) causes.push(forbidden('sendInitialEvents is forbidden for list', 'sendInitialEvents'));
  refuse(causes);
}

/** kube's validateWatchOptions (WatchList enabled, as in 1.32). */
export function validateWatchQuery(query: ListQuery): void {
  const causes: StatusCause[] = [];
  const match = query.resourceVersionMatch;
  if (query.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    causes.push(forbidden('sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (match !== undefined) {
    if (query.sendInitialEvents === undefined) causes.push(forbidden('resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (match !== 'NotOlderThan') causes.push(notSupported(match, ['NotOlderThan']));
    if (query.continueToken !== undefined) causes.push(forbidden('resourceVersionMatch is forbidden when continue is provided'));
  }
  refuse(causes);
}

/** A resourceVersion as a revision; 400 when it is not a number. */
export function revisionOf(resourceVersion: string): number {
  if (!/^\d+$/.test(resourceVersion) || !Number.isSafeInteger(Number(resourceVersion))) {
    throw new KedgeError('BadRequest', `invalid resourceVersion ${JSON.stringify(resourceVersion)}`);
  }
  return Number(resourceVersion);
}

function refuse(causes: StatusCause[]): void {
  if (causes.length === 0) return;
  const summary = causes.map((c) => `${c.field}: ${c.message}`);
  throw new KedgeError('Invalid', `ListOptions.meta.k8s.io "" is invalid: ${summary.length === 1 ? summary[0] : `[${summary.join(', ')}]`}`, {
    details: { name: '', group: 'meta.k8s.io', kind: 'ListOptions', causes },
  });
}

function integer(text: string | null): number {
  if (text === null || text === '') return 0;
  if (!/^[+-]?\d+$/.test(text)) throw new KedgeError('BadRequest', `strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  return Math.max(0, Number(text));
}
