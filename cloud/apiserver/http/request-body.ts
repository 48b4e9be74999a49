import { parse as parseYaml } from 'yaml';
import { KedgeError } from '../../../shared/errors.js';
import type { KubeObject } from '../../../shared/types.js';
import { decodeKubeProtobuf, PROTOBUF_MEDIA_TYPE } from '../protobuf/decode.js';
import { MAX_BODY_BYTES, mediaType, type ApiRequest } from '../request.js';
import { parseJsonWithinDepth, parseWithinDepth } from './body-depth.js';

/**
 * Decoding request bodies: JSON (also when no Content-Type is sent), YAML, and the Kubernetes
 * protobuf of the kinds kubectl's generators send (`kubectl create namespace|configmap|...`).
 */

export function checkBodySize(req: ApiRequest): void {
  if (req.body && req.body.length > MAX_BODY_BYTES) throw tooLarge();
}

export function tooLarge(limit = MAX_BODY_BYTES): KedgeError {
  return new KedgeError('TooLarge', `Request entity too large: limit is ${limit}`);
}

/** The body as a JSON value; `patch` allows the +json patch media types. */
export function decodeBody(req: ApiRequest, opts: { patch?: boolean } = {}): unknown {
  const type = mediaType(req.headers['content-type']);
  const text = (req.body ?? Buffer.alloc(0)).toString('utf8');
  if (text.trim() === '') throw new KedgeError('BadRequest', 'the request body is empty');
  if (type === PROTOBUF_MEDIA_TYPE && opts.patch !== true) return decodeKubeProtobuf(req.body!);
  if (type === 'application/yaml' || type === 'application/apply-patch+yaml') return parseYamlText(text);
  const jsonLike = type === '' || type === 'application/json' || type === 'text/json' || (opts.patch === true && type.endsWith('+json'));
  if (!jsonLike) throw new KedgeError('UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`);
  try {
    return parseJsonWithinDepth(text);
  } catch (err) {
    throw new KedgeError('BadRequest', `the request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** The body as an object with metadata (create/update). */
export function decodeObject(req: ApiRequest): KubeObject {
  const value = decodeBody(req);
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new KedgeError('BadRequest', 'the request body must be a JSON object');
  const obj = value as KubeObject;
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) throw new KedgeError('BadRequest', 'metadata must be an object');
  return obj;
}

/**
 * The DeleteOptions object of a DELETE body, when the body is a JSON object; undefined
 * otherwise (then the query's options apply). kubectl drain's fallback sends protobuf, which
 * is ignored (as is any body that does not decode).
 */
export function decodeDeleteOptions(req: ApiRequest): Record<string, unknown> | undefined {
  const type = mediaType(req.headers['content-type']);
  if (!req.body || req.body.length === 0 || (type !== '' && type !== 'application/json')) return undefined;
  try {
    const value = JSON.parse(req.body.toString('utf8')) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function parseYamlText(text: string): unknown {
  try {
    return parseWithinDepth(text, parseYaml);
  } catch (err) {
    throw new KedgeError('BadRequest', `the request body is not valid YAML: ${(err as Error).message}`);
  }
}
