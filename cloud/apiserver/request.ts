import type { Observable } from 'rxjs';
import { KedgeError, toKubeStatus, type KubeStatus } from '../../shared/errors.js';

/** The largest request body the apiserver accepts (as kube-apiserver: 3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** One API request, free of any transport: HTTP and the loopback client both build these. */
export interface ApiRequest {
  method: string;
  /** The URL path without the query string, e.g. "/api/v1/namespaces/default/pods". */
  path: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  body?: Buffer;
}

/** One line of a watch stream: ADDED, MODIFIED, DELETED, BOOKMARK, or ERROR carrying a Status. */
export interface WireWatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: unknown;
  /**
   * Part of the state the watch starts from (the synthetic ADDED events, the history it resumes
   * with), not a change since: never sent, it spares the event from a slow watcher's budget.
   */
  initial?: true;
}

export type ApiResponse =
  | { type: 'json'; status: number; body: unknown; warnings?: readonly string[] }
  /** With `more`, the response stays open (chunked) and each string it emits follows `body`, until it completes. */
  | { type: 'text'; status: number; body: string; more?: Observable<string>; warnings?: readonly string[] }
  /** A body already encoded (a cached document, protobuf), sent as it is with its Content-Type. */
  | { type: 'bytes'; status: number; body: Buffer; contentType: string; warnings?: readonly string[] }
  /** Written as one compact JSON object per line until the observable completes. */
  | { type: 'watch'; status: 200; events: Observable<WireWatchEvent> };

export type ApiHandler = (req: ApiRequest) => Promise<ApiResponse>;

/**
 * What a transport learns from a request's head (its body not read yet): refused at once, or
 * let in with the most body it may send and a `done` to call once its answer is over.
 */
export type Admission = { refusal: ApiResponse } | { maxBodyBytes: number; done(): void };

/** Decides on a request from its method, path, query and headers alone (see request-gate.ts). */
export type RequestGate = (head: ApiRequest) => Promise<Admission>;

export function jsonResponse(status: number, body: unknown): ApiResponse {
  return { type: 'json', status, body };
}

export function textResponse(status: number, body: string): ApiResponse {
  return { type: 'text', status, body };
}

/**
 * The response with kube's warnings: each goes out as a `Warning: 299 - "<text>"` header
 * (apimachinery's NewWarningHeader), which kubectl prints as `Warning: <text>`.
 */
export function withWarnings(res: ApiResponse, warnings: readonly string[] | undefined): ApiResponse {
  return res.type === 'watch' || !warnings?.length ? res : { ...res, warnings: [...(res.warnings ?? []), ...warnings] };
}

/** A warning as the HTTP Warning header carries it: code 299, agent "-", the text quoted. */
export function warningHeader(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}

/** Any failure as a Kubernetes Status response. */
export function errorResponse(err: unknown): ApiResponse {
  const status: KubeStatus = toKubeStatus(err);
  return { type: 'json', status: status.code, body: status };
}

/** 405 as kube-apiserver words it; `use` names the method that would do, where there is one. */
export function methodNotAllowed(method: string, path: string, use?: string): KedgeError {
  return new KedgeError('MethodNotAllowed', `the server does not allow this method on the requested resource (${method} ${path})${use ? `; use ${use}` : ''}`);
}

/** The bare media type of a Content-Type header ("application/json; charset=utf-8" → "application/json"). */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}
