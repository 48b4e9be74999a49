import { posix } from 'node:path';
import { KedgeError } from '../../../shared/errors.js';

/**
 * kube-apiserver's continue tokens (storage.EncodeContinue): unpadded base64url of
 * {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key, after the list's prefix>"}.
 * rv -1 marks the inconsistent token a 410 hands out: continue at the newest revision.
 */
export interface ContinueToken {
  /** The store key to continue from (prefix included). */
  fromKey: string;
  /** The revision every page of the list is read at; -1: the current one. */
  revision: number;
}

const VERSION = 'meta.k8s.io/v1';
const INVALID = 'continue key is not valid';

/** The token for the rest of a list of `prefix`, from `nextKey` on (kube: the last key returned + "\x00"). */
export function encodeContinue(nextKey: string, prefix: string, revision: number): string {
  const start = nextKey.slice(prefix.length);
  return Buffer.from(JSON.stringify({ v: VERSION, rv: revision, start })).toString('base64url');
}

/** Reads a token for a list of `prefix`; 400 BadRequest with kube's words when it is not one. */
export function decodeContinue(token: string, prefix: string): ContinueToken {
  if (!/^[A-Za-z0-9_-]*$/.test(token) || token.length % 4 === 1) throw invalid(`${INVALID}: illegal base64 data`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (err) {
    throw invalid(`${INVALID}: ${(err as Error).message}`);
  }
  const { v, rv, start } = (parsed ?? {}) as { v?: unknown; rv?: unknown; start?: unknown };
  if (v !== VERSION) throw invalid(`${INVALID}: server does not recognize this encoded version ${String(v ?? '')}`.trimEnd());
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv === 0) throw invalid(`${INVALID}: incorrect encoded start resourceVersion (version ${VERSION})`);
  if (typeof start !== 'string' || start === '') throw invalid(`${INVALID}: encoded start key empty (version ${VERSION})`);
  const key = start.startsWith('/') ? start : `/${start}`;
  // As kube: a start key that path cleaning would change could reach outside the list's prefix.
  if (clean(key) !== key) throw invalid(`${INVALID}: ${start}`);
  return { fromKey: prefix + key.slice(1), revision: rv };
}

function clean(key: string): string {
  const normal = posix.normalize(key);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

function invalid(why: string): KedgeError {
  return new KedgeError('BadRequest', `invalid continue token: ${why}`);
}
