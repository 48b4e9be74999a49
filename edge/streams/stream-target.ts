import type { Duplex } from 'node:stream';
import { isKedgeError } from '../../shared/errors.js';
import type { PodRef } from '../../shared/protocol/stream-frame.js';
import type { StreamEnd, StreamRequest } from '../../shared/protocol/streams.js';
import type { Pod } from '../../shared/types.js';
import type { LocalCache } from '../metamanager/local-cache.js';
import type { ContainerInfo, ContainerSession, Runtime } from '../runtime/runtime.js';

/** What a stream talks to on the edge: a process (exec, attach), a connection to the pod's port, or why neither. */
export type StreamTarget = { session: ContainerSession } | { socket: Duplex } | { end: Extract<StreamEnd, { error: string }> };

export interface TargetDeps {
  nodeName: string;
  cache: Pick<LocalCache, 'objects'>;
  runtime: Runtime;
}

const refused = (reason: 'NotFound' | 'BadRequest', error: string): StreamTarget => ({ end: { error, reason } });

/** The newest run of the container that is running now (kubelet's "container not found" otherwise). Pure. */
export function runningRun(runs: readonly ContainerInfo[], podUid: string, container: string): ContainerInfo | undefined {
  return runs.filter((c) => c.podUid === podUid && c.name === container && c.state === 'running').sort((a, b) => b.attempt - a.attempt)[0];
}

/**
 * [SYNC-20] Starts what an open asks for, on a pod this edge holds (by uid): exec or attach on
 * the newest running run of the container, or a connection to a port in the pod's sandbox.
 */
export async function startTarget(deps: TargetDeps, ref: PodRef, request: StreamRequest): Promise<StreamTarget> {
  const held = deps.cache.objects().find((o) => o.kind === 'Pod' && o.uid === ref.uid);
  if (!held) return refused('NotFound', `pod ${ref.namespace}/${ref.name} is not on node ${deps.nodeName}`);
  try {
    return request.kind === 'portforward' ? await forward(deps.runtime, ref, request.port) : await startSession(deps.runtime, held.object as Pod, request);
  } catch (err) {
    const reason = isKedgeError(err, 'NotFound') ? 'NotFound' : isKedgeError(err, 'BadRequest') ? 'BadRequest' : 'InternalError';
    const what = request.kind === 'portforward' ? `error forwarding port ${request.port} to pod ${ref.namespace}/${ref.name}: ` : '';
    return { end: { error: `${what}${(err as Error).message}`, reason } };
  }
}

async function startSession(runtime: Runtime, pod: Pod, request: Exclude<StreamRequest, { kind: 'portforward' }>): Promise<StreamTarget> {
  const { container } = request;
  if (!(pod.spec.containers ?? []).some((c) => c.name === container)) return refused('BadRequest', `container ${container} is not valid for pod ${pod.metadata.name ?? ''}`);
  const supported = request.kind === 'exec' ? runtime.execStream !== undefined : runtime.attach !== undefined;
  if (!supported) return refused('BadRequest', `the ${runtime.name} runtime cannot ${request.kind === 'exec' ? 'exec into' : 'attach to'} a container`);
  const run = runningRun(await runtime.listContainers(), pod.metadata.uid ?? '', container);
  if (!run) return refused('NotFound', `container not found ("${container}")`);
  const options = { stdin: request.stdin, stdout: request.stdout, stderr: request.stderr, tty: request.tty };
  const session = request.kind === 'exec' ? await runtime.execStream!(run.id, request.command, options) : await runtime.attach!(run.id, options);
  return { session };
}

async function forward(runtime: Runtime, ref: PodRef, port: number): Promise<StreamTarget> {
  if (!runtime.portForward) return refused('BadRequest', `the ${runtime.name} runtime cannot forward a port`);
  const sandbox = (await runtime.listSandboxes()).filter((s) => s.podUid === ref.uid && s.state === 'ready').sort((a, b) => b.createdAt - a.createdAt)[0];
  if (!sandbox) return refused('NotFound', `pod ${ref.namespace}/${ref.name} has no running sandbox`);
  return { socket: await runtime.portForward(sandbox.id, port) };
}
