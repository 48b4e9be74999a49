import type { Status } from '../model/kube.js';
import { sessionHeaders } from './session.js';

/** A failed API call, with the Status message the cloud gave. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** No answer at all: the connection failed or broke (the cloud stopped, or the network is gone). */
export class CloudUnreachable extends Error {
  override readonly name = 'CloudUnreachable';

  constructor(cause: unknown) {
    super(`the cloud does not answer (${(cause as Error).message})`);
  }
}

/** Runs a fetch (or a read of its body); a network failure, unless aborted, becomes CloudUnreachable. */
export async function reaching<T>(request: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  try {
    return await request();
  } catch (err) {
    if (signal?.aborted || !(err instanceof TypeError)) throw err;
    throw new CloudUnreachable(err);
  }
}

export interface CallOptions {
  body?: unknown;
  /** Defaults to application/json. */
  contentType?: string;
  signal?: AbortSignal;
}

/** A same-origin request, authenticated by the dashboard's session (no cookies are sent). */
export function send(method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...sessionHeaders(), accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const init: RequestInit = { method, headers, credentials: 'omit' };
  if (options.body !== undefined) init.body = JSON.stringify(options.body);
  if (options.signal) init.signal = options.signal;
  return reaching(() => fetch(path, init), options.signal);
}

/** JSON from the API; a failure throws an ApiError with the Status message. */
export async function call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
  const res = await send(method, path, options);
  if (!res.ok) throw await apiError(res);
  return (await res.json()) as T;
}

export async function apiError(res: Response): Promise<ApiError> {
  const status = (await res.json().catch(() => ({}))) as Status;
  return new ApiError(res.status, status.message ?? `${res.status} ${res.statusText}`);
}
