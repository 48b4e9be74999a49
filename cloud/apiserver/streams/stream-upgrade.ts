import type { Clock } from '../../../shared/clock.js';
import { KedgeError } from '../../../shared/errors.js';
import type { Pod } from '../../../shared/types.js';
import type { ForwardTarget, HubForward } from '../forward/hub-forward.js';
import { unauthorized, type UserInfo } from '../auth/authn.js';
import { authorize } from '../auth/authz.js';
import type { RuleSource } from '../auth/rbac/types.js';
import { refuseReservedNode } from '../auth/node-authz.js';
import type { ResourceDef } from '../kinds/registry.js';
import { errorResponse, type ApiRequest, type ApiResponse } from '../request.js';
import { notFoundPath } from '../rest/rest-handler.js';
import type { ObjectStorage } from '../rest/storage.js';
import type { PodStreams } from '../subresources/pod-streams.js';
import { CHANNEL_PROTOCOL } from './channel-frames.js';
import { serveChannels } from './channel-session.js';
import { PORTFORWARD_PROTOCOL, servePortForward } from './portforward-session.js';
import { RecentRefusals } from './recent-refusals.js';
import { channelRequestOf, streamPathOf, type StreamPath, type StreamSubresource } from './stream-target.js';
import type { StreamSocket } from './stream-socket.js';

export interface StreamUpgradeDeps {
  /** The caller, as the pipeline authenticates it. */
  authenticate(req: ApiRequest): Promise<UserInfo | undefined>;
  storage: ObjectStorage;
  /** The kind the pods are (absent from a registry without pods: every such path is then not found). */
  pods: ResourceDef | undefined;
  podStreams?: PodStreams;
  clock: Clock;
  reservedNode?: string;
  /** On a standby cloud: the hub's leader, which serves these instead. */
  hubForward?: HubForward;
  /** The RBAC policy the pipeline authorizes with (auth/rbac/apiserver-rbac.ts). */
  rules?: RuleSource;
}

/** What to do with an upgrade request: refuse it with a Status, or accept it with a subprotocol and serve the socket. */
export type UpgradeAnswer =
  | { refusal: ApiResponse }
  /** Sent on, as it is, to the hub's leader (forward/forward-upgrade.ts). */
  | { forward: ForwardTarget; caPem: string }
  | {
      protocol: string;
      serve(socket: StreamSocket): void;
      /** The WebSocket handshake failed after all: let go of what was opened for it. */
      abandon(): void;
    };

/** Upgrade requests to a pod's exec, attach or portforward. */
export interface StreamUpgrade {
  /** Whether `path` is one of these (any other path with an Upgrade header is a plain request). */
  handles(path: string): boolean;
  /** Never rejects: a refusal is an answer. */
  decide(req: ApiRequest): Promise<UpgradeAnswer>;
}

const protocolOf: Record<StreamSubresource, string> = { exec: CHANNEL_PROTOCOL, attach: CHANNEL_PROTOCOL, portforward: PORTFORWARD_PROTOCOL };

/**
 * exec, attach and portforward of a pod as kube-apiserver decides on them, before any byte is
 * streamed: the caller authenticated and allowed to `create` the subresource (as kube 1.35
 * requires of WebSocket upgrades too, not only `get`); a WebSocket with kubectl's subprotocol;
 * the pod there and bound to a node; for exec and attach a valid container and command, and
 * the stream to the pod open. Any refusal is a Status, never a 101.
 */
export function streamUpgrade(deps: StreamUpgradeDeps): StreamUpgrade {
  const recent = new RecentRefusals(deps.clock);
  const decide = (req: ApiRequest, target: StreamPath): Promise<UpgradeAnswer> => {
    let key: string | undefined;
    const attempt = async (): Promise<UpgradeAnswer> => {
      const user = await deps.authenticate(req);
      if (!user) throw unauthorized();
      refuseReservedNode(user, deps.reservedNode);
      await authorize(user, { verb: 'create', resource: 'pods', subresource: target.subresource, group: '', namespace: target.namespace, name: target.name, path: req.path }, undefined, deps.rules);
      key = `${user.name} ${req.path}?${req.query.toString()}`;
      const pod = podReader(deps, target);
      const forward = await forwardTarget(deps, req, pod);
      if (forward) return forward;
      if (!isWebSocket(req)) return { refusal: recent.recall(key) ?? errorResponse(notSpoken(req, target)) };
      const answer = await accept(deps, req, target, pod);
      key = undefined; // accepted: nothing to remember
      return answer;
    };
    return attempt().catch((err: unknown) => {
      const refusal = errorResponse(err);
      if (key !== undefined && isWebSocket(req)) recent.remember(key, refusal);
      return { refusal };
    });
  };
  return {
    handles: (path) => streamPathOf(path) !== undefined,
    decide: (req) => {
      const target = streamPathOf(req.path);
      return target ? decide(req, target) : Promise.resolve({ refusal: errorResponse(notFoundPath()) });
    },
  };
}

/** The request's pod, read from storage once however many steps ask for it. */
function podReader(deps: StreamUpgradeDeps, target: StreamPath): () => Promise<Pod> {
  let pod: Promise<Pod> | undefined;
  return () => (pod ??= deps.storage.get(deps.pods!, target.namespace, target.name) as Promise<Pod>);
}

async function accept(deps: StreamUpgradeDeps, req: ApiRequest, target: StreamPath, readPod: () => Promise<Pod>): Promise<UpgradeAnswer> {
  const protocol = protocolOf[target.subresource];
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  if (!offered.includes(protocol)) throw unknownProtocols(target, offered);
  if (!deps.pods) throw notFoundPath();
  const pod = await readPod();
  if (!pod.spec.nodeName) throw new KedgeError('BadRequest', `pod ${target.name} does not have a host assigned`);
  const streams = deps.podStreams;
  if (!streams) throw new KedgeError('Unavailable', 'this server cannot reach edges for exec, attach or port-forward');
  if (target.subresource === 'portforward') return { protocol, serve: (socket) => servePortForward(socket, pod, streams), abandon: () => {} };
  const request = channelRequestOf(req.query, pod, target.subresource);
  const stream = await streams.open(pod, request);
  return { protocol, serve: (socket) => void serveChannels(socket, stream, request), abandon: () => stream.cancel('the WebSocket handshake failed') };
}

/** Where the hub's leader serves this stream, if this cloud's hub is standby. */
async function forwardTarget(deps: StreamUpgradeDeps, req: ApiRequest, readPod: () => Promise<Pod>): Promise<UpgradeAnswer | undefined> {
  if (!deps.hubForward || !deps.pods) return undefined;
  const leader = await deps.hubForward.target(req, await readPod());
  return leader && { forward: leader, caPem: deps.hubForward.caPem };
}

function isWebSocket(req: ApiRequest): boolean {
  return (req.headers.upgrade ?? '').toLowerCase() === 'websocket' && req.method.toUpperCase() === 'GET';
}

/** A SPDY upgrade (kubectl's fallback) or anything else but a WebSocket. */
function notSpoken(req: ApiRequest, target: StreamPath): KedgeError {
  const asked = req.headers.upgrade ? `${req.headers.upgrade} upgrades` : 'this request';
  return new KedgeError('BadRequest', `unable to upgrade connection: pods/${target.subresource} speaks only WebSocket with subprotocol ${protocolOf[target.subresource]}, not ${asked}`);
}

function unknownProtocols(target: StreamPath, offered: string[]): KedgeError {
  const list = offered.length ? offered.join(', ') : 'none';
  if (target.subresource === 'portforward') {
    return new KedgeError('BadRequest', `unable to upgrade: no tunneling spdy protocols provided (kedge speaks ${PORTFORWARD_PROTOCOL}; offered: ${list})`);
  }
  return new KedgeError('BadRequest', `unable to upgrade connection: pods/${target.subresource} speaks only the WebSocket subprotocol ${CHANNEL_PROTOCOL} (offered: ${list})`);
}
