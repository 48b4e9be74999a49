import { KedgeError, type ErrorCode } from '../../../shared/errors.js';
import type { PodRef } from '../../../shared/protocol/stream-frame.js';
import type { StreamEnd, StreamErrorReason, StreamRequest } from '../../../shared/protocol/streams.js';

const VERBS: Record<StreamRequest['kind'], string> = { exec: 'exec into', attach: 'attach to', portforward: 'forward a port of' };

/** What a stream does, for messages: `exec into pod default/x`. */
export function streamWhat(request: StreamRequest, pod: PodRef): string {
  return `${VERBS[request.kind]} pod ${pod.namespace}/${pod.name}`;
}

const CODES: Record<StreamErrorReason, ErrorCode> = {
  NotFound: 'NotFound',
  BadRequest: 'BadRequest',
  Unavailable: 'Unavailable',
  Timeout: 'Timeout',
  TooManyRequests: 'TooManyRequests',
  InternalError: 'Internal',
};

/** The error an open rejects with when the stream ended before it started. */
export function endError(end: StreamEnd): KedgeError {
  if ('exitCode' in end) return new KedgeError('Internal', `the stream ended with exit code ${end.exitCode} before it opened`);
  return new KedgeError(CODES[end.reason], end.error);
}
