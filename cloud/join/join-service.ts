import type { Secret } from '../../shared/config-types.js';
import type { Clock } from '../../shared/clock.js';
import { refusals, type Counters } from '../../shared/counters.js';
import { sameSecret } from '../../shared/digest.js';
import { isKedgeError, KedgeError } from '../../shared/errors.js';
import { parseBootstrapToken } from '../../shared/join-token.js';
import type { Logger } from '../../shared/log.js';
import { isValidNodeName } from '../../shared/protocol/topics.js';
import { getOrUndefined, type ApiClient } from '../client/client.js';
import { bearerOf, jsonResponse, methodNotAllowed, newToken, textResponse, type ApiRequest, type ApiResponse } from '../apiserver/index.js';
import { hashPassword } from '../hub/password-hash.js';
import { bootstrapTokenName, bootstrapTokenOf, JOIN_NAMESPACE, nodeCredentialName, nodeCredentialSecret, type BootstrapTokenSpec } from './secrets.js';

/** GET, anonymous: the cloud's CA, which a joining edge checks against its token's fingerprint. */
export const CA_PATH = '/cacerts';
/** POST {"node": name} with the join token's `<id>.<secret>` as bearer token: the node's broker credential. */
export const JOIN_PATH = '/kedge/v1/join';
export const JOIN_REFUSED = 'kedge_join_refused_total';
/**
 * The most body a join path takes: `{"node": "<name>"}` (a node name is at most 253 bytes).
 * These paths are served before any credential is checked, so they read little.
 */
export const JOIN_MAX_BODY_BYTES = 1024;

/** What a joining edge gets back. */
export interface JoinAnswer {
  apiVersion: 'kedge.io/v1';
  kind: 'NodeCredential';
  node: string;
  /** The broker password; the cloud keeps only its hash. */
  password: string;
  /**
   * Where the node connects, as reachable from the edge (the host it used to reach the API):
   * with several clouds, every cloud's broker, comma-separated, this cloud's first.
   */
  brokerUrl: string;
}

export interface JoinDeps {
  /** The cloud's own client (it reads token Secrets and writes credential Secrets). */
  api: ApiClient;
  clock: Clock;
  logger: Logger;
  counters: Counters;
  caPem: string;
  /** The broker URL (or comma-separated URLs) for an edge that reached the API under this Host header. */
  brokerUrlFor(host: string | undefined): string | Promise<string>;
  /** The cloud's own node name (`kedge cloud --node-name`): no edge may join under it. */
  reservedNode?: string;
}

export type JoinHandler = (req: ApiRequest, path: string) => Promise<ApiResponse> | undefined;

/** For the join paths, the most body they take; undefined for any other path. */
export function joinBodyLimit(path: string): number | undefined {
  return path === CA_PATH || path === JOIN_PATH ? JOIN_MAX_BODY_BYTES : undefined;
}

/** Counts and logs one refused join (sampled: a flood costs a line per interval). */
type RefuseJoin = (reason: string, err: KedgeError) => KedgeError;

/** The two paths served before authentication: a joining edge has no credential yet. */
export function joinHandler(deps: JoinDeps): JoinHandler {
  // One for the handler, not one per request: its log sampling spans the requests.
  const refusal = refusals(deps.counters, JOIN_REFUSED, deps.logger, 'refused a join', { clock: deps.clock });
  const refuse: RefuseJoin = (reason, err) => {
    refusal(reason, err.message);
    return err;
  };
  return (req, path) => {
    if (path === CA_PATH) return Promise.resolve(caCerts(req, deps.caPem));
    if (path === JOIN_PATH) return join(deps, refuse, req);
    return undefined;
  };
}

function caCerts(req: ApiRequest, caPem: string): ApiResponse {
  const method = req.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, CA_PATH, 'GET');
  return textResponse(200, caPem);
}

async function join(deps: JoinDeps, refuse: RefuseJoin, req: ApiRequest): Promise<ApiResponse> {
  if (req.method.toUpperCase() !== 'POST') throw methodNotAllowed(req.method.toUpperCase(), JOIN_PATH, 'POST');
  const presented = parseBootstrapToken(bearerOf(req.headers.authorization) ?? '');
  if (!presented) throw refuse('bad-token', new KedgeError('Unauthorized', 'a join needs a join token (kedge token create --node <name>)'));
  const node = nodeOf(req.body);
  if (!node) throw refuse('bad-request', new KedgeError('BadRequest', 'the join request must be JSON {"node": "<node name>"} with a valid node name'));
  if (node === deps.reservedNode) throw refuse('reserved-node', new KedgeError('Forbidden', `node name ${node} is reserved: it is the cloud's own control-plane node`));
  const token = await tokenNamed(deps.api, presented.id);
  if (!token || !sameSecret(token.secret, presented.secret)) throw refuse('bad-token', new KedgeError('Unauthorized', 'unknown or revoked join token'));
  if (token.expires !== undefined && token.expires <= deps.clock.now()) {
    throw refuse('expired', new KedgeError('Unauthorized', `the join token expired at ${new Date(token.expires).toISOString()}`));
  }
  if (token.node && token.node !== node) throw refuse('wrong-node', new KedgeError('Forbidden', `this join token is for node ${token.node}, not ${node}`));
  const password = newToken();
  await saveCredential(deps.api, node, nodeCredentialSecret({ node, passwordHash: hashPassword(password), tokenId: token.id }));
  deps.logger.info('node joined', { node, token: token.id });
  const answer: JoinAnswer = { apiVersion: 'kedge.io/v1', kind: 'NodeCredential', node, password, brokerUrl: await deps.brokerUrlFor(req.headers.host) };
  return jsonResponse(201, answer);
}

function nodeOf(body: Buffer | undefined): string | undefined {
  try {
    const node = (JSON.parse(body?.toString('utf8') ?? '') as { node?: unknown }).node;
    return typeof node === 'string' && isValidNodeName(node) ? node : undefined;
  } catch {
    return undefined;
  }
}

async function tokenNamed(api: ApiClient, id: string): Promise<BootstrapTokenSpec | undefined> {
  const secret = await getOrUndefined(() => api.get<Secret>({ resource: 'secrets', namespace: JOIN_NAMESPACE, name: bootstrapTokenName(id) }));
  return secret && bootstrapTokenOf(secret);
}

/** A node joining again gets a new credential; the old one stops working (its connections close). */
async function saveCredential(api: ApiClient, node: string, secret: Secret): Promise<void> {
  try {
    await api.create({ resource: 'secrets', namespace: JOIN_NAMESPACE }, secret);
  } catch (err) {
    if (!isKedgeError(err, 'AlreadyExists')) throw err;
    await api.replace({ resource: 'secrets', namespace: JOIN_NAMESPACE, name: nodeCredentialName(node) }, secret);
  }
}
