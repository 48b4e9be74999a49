import { KedgeError, type StatusCause } from '../../../shared/errors.js';
import type { LogOptions } from '../../../shared/protocol/envelope.js';
import { invalid, invalidValue } from '../admission/admission.js';

/** A GET pods/<name>/log as the server serves it. */
export interface PodLogQuery {
  /** What the edge is asked for first. */
  options: LogOptions;
  /** Keep the response open and write what the container writes next, until it exits. */
  follow: boolean;
  /** Stop after this many bytes. */
  limitBytes?: number;
}

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i;

/** An integer query parameter, as kube decodes it (a 400 with Go's wording when it is not one). */
function integer(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  if (!/^[+-]?\d+$/.test(text)) throw new KedgeError('BadRequest', `strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new KedgeError('BadRequest', `strconv.ParseInt: parsing ${JSON.stringify(text)}: value out of range`);
  return value;
}

/** A boolean query parameter as kube decodes it: present and neither "0" nor "false". */
function flag(query: URLSearchParams, name: string): boolean {
  const text = query.get(name);
  return text !== null && text !== '0' && text.toLowerCase() !== 'false';
}

function time(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  const ms = RFC3339.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) throw new KedgeError('BadRequest', `parsing time ${JSON.stringify(text)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(text)} as RFC 3339`);
  return ms;
}

/** kube's ValidatePodLogOptions: problems are one 422 naming PodLogOptions. */
function validate(podName: string, q: { tailLines?: number; limitBytes?: number; sinceSeconds?: number; sinceTime?: number }): void {
  const causes: StatusCause[] = [];
  if (q.tailLines !== undefined && q.tailLines < 0) causes.push(invalidValue('tailLines', q.tailLines, 'must be greater than or equal to 0'));
  if (q.limitBytes !== undefined && q.limitBytes < 1) causes.push(invalidValue('limitBytes', q.limitBytes, 'must be greater than 0'));
  if (q.sinceSeconds !== undefined && q.sinceTime !== undefined) {
    causes.push({ reason: 'FieldValueForbidden', field: '', message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified' });
  } else if (q.sinceSeconds !== undefined && q.sinceSeconds < 1) causes.push(invalidValue('sinceSeconds', q.sinceSeconds, 'must be greater than 0'));
  if (causes.length > 0) throw invalid({ kind: 'PodLogOptions', group: '' }, podName, causes);
}

/** The query of GET pods/<name>/log: a value that does not parse is a 400, one out of range a 422, as in kube. Pure. */
export function podLogQueryOf(query: URLSearchParams, podName: string): PodLogQuery {
  const tailLines = integer(query, 'tailLines');
  const limitBytes = integer(query, 'limitBytes');
  const sinceSeconds = integer(query, 'sinceSeconds');
  const sinceTime = time(query, 'sinceTime');
  validate(podName, { tailLines, limitBytes, sinceSeconds, sinceTime });
  const options: LogOptions = {};
  const container = query.get('container');
  // Longer than any container name may be: the edge could not be asked.
  if (container && container.length > 63) throw new KedgeError('BadRequest', `container ${container} is not valid for pod ${podName}`);
  if (container) options.container = container;
  if (tailLines !== undefined) options.tailLines = tailLines;
  if (sinceSeconds !== undefined) options.sinceSeconds = sinceSeconds;
  if (sinceTime !== undefined) options.sinceTime = Math.max(0, sinceTime);
  if (flag(query, 'timestamps')) options.timestamps = true;
  if (flag(query, 'previous')) options.previous = true;
  return { options, follow: flag(query, 'follow'), ...(limitBytes !== undefined ? { limitBytes } : {}) };
}
