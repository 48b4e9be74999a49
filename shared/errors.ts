/** One error type for the whole project; `code` decides the HTTP status and Kubernetes reason. */
export type ErrorCode =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Expired'
  | 'TooLarge'
  | 'UnsupportedMediaType'
  | 'Invalid'
  | 'TooManyRequests'
  | 'Internal'
  | 'Unavailable'
  | 'Timeout';

/** HTTP status and Kubernetes `Status.reason` for each code. */
export const errorTable: Record<ErrorCode, { status: number; reason: string }> = {
  BadRequest: { status: 400, reason: 'BadRequest' },
  Unauthorized: { status: 401, reason: 'Unauthorized' },
  Forbidden: { status: 403, reason: 'Forbidden' },
  NotFound: { status: 404, reason: 'NotFound' },
  MethodNotAllowed: { status: 405, reason: 'MethodNotAllowed' },
  NotAcceptable: { status: 406, reason: 'NotAcceptable' },
  AlreadyExists: { status: 409, reason: 'AlreadyExists' },
  Conflict: { status: 409, reason: 'Conflict' },
  Expired: { status: 410, reason: 'Expired' },
  TooLarge: { status: 413, reason: 'RequestEntityTooLarge' },
  UnsupportedMediaType: { status: 415, reason: 'UnsupportedMediaType' },
  Invalid: { status: 422, reason: 'Invalid' },
  TooManyRequests: { status: 429, reason: 'TooManyRequests' },
  Internal: { status: 500, reason: 'InternalError' },
  Unavailable: { status: 503, reason: 'ServiceUnavailable' },
  Timeout: { status: 504, reason: 'Timeout' },
};

export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface ErrorOptions {
  cause?: unknown;
  details?: StatusDetails;
  /** A continue token the Status carries in its metadata (410 to a list continued too late). */
  continueToken?: string;
}

export class KedgeError extends Error {
  readonly code: ErrorCode;
  readonly details: StatusDetails | undefined;
  readonly continueToken: string | undefined;

  constructor(code: ErrorCode, message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KedgeError';
    this.code = code;
    this.details = options.details;
    this.continueToken = options.continueToken;
  }

  get httpStatus(): number {
    return errorTable[this.code].status;
  }
}

export function isKedgeError(err: unknown, code?: ErrorCode): err is KedgeError {
  return err instanceof KedgeError && (code === undefined || err.code === code);
}

/** Normalises anything thrown into a KedgeError (unknown failures become Internal). */
export function asKedgeError(err: unknown): KedgeError {
  if (err instanceof KedgeError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new KedgeError('Internal', message, { cause: err });
}

/** A Kubernetes `Status` object (kind Status, apiVersion v1). */
export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string };
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: StatusDetails;
  code: number;
}

export function toKubeStatus(err: unknown): KubeStatus {
  const e = asKedgeError(err);
  const { status, reason } = errorTable[e.code];
  const metadata = e.continueToken === undefined ? {} : { continue: e.continueToken };
  const out: KubeStatus = { kind: 'Status', apiVersion: 'v1', metadata, status: 'Failure', message: e.message, reason, code: status };
  if (e.details) out.details = e.details;
  return out;
}

/** Reads a Kubernetes Status object (e.g. from an HTTP response) back into a KedgeError. */
export function fromKubeStatus(status: { reason?: string; message?: string; code?: number; details?: StatusDetails }): KedgeError {
  const entry = Object.entries(errorTable).find(([, v]) => v.reason === status.reason && (status.code === undefined || v.status === status.code));
  const code = (entry?.[0] as ErrorCode | undefined) ?? 'Internal';
  return new KedgeError(code, status.message ?? status.reason ?? 'unknown error', status.details ? { details: status.details } : {});
}
