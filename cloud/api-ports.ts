import { KedgeError } from '../shared/errors.js';
import type { LogChunk, LogOptions } from '../shared/protocol/envelope.js';
import type { StreamRequest } from '../shared/protocol/streams.js';
import type { Pod } from '../shared/types.js';
import type { ForwardTarget, HubForward } from './apiserver/index.js';
import type { ApiRequest, ApiResponse, ApiServerDeps } from './apiserver/index.js';
import type { CloudHubHandle, HubStats } from './hub/index.js';
import type { ReportedUsage } from './hub/node-usages.js';
import { podRef } from './hub/resync.js';
import { joinBodyLimit, type JoinHandler } from './join/index.js';

// The hub and the join service are clients of the apiserver (they need its loopback client), so
// they start after it; yet it serves their paths. It holds these ports, each connected once its
// part is up.

type HubParts = Pick<CloudHubHandle, 'podLogs' | 'stats' | 'streams' | 'nodeUsages'>;
type PodStreams = NonNullable<ApiServerDeps['podStreams']>;
type PodStream = Awaited<ReturnType<PodStreams['open']>>;

/** Pod logs, streams, usage reports and the hub's figures for /metrics: until the hub is up, logs and streams are Unavailable, no node has usage and /metrics has no hub lines. */
export class HubPort implements NonNullable<ApiServerDeps['podLogs']>, PodStreams, NonNullable<ApiServerDeps['usage']> {
  private hub: HubParts | undefined;

  connect(hub: HubParts): void {
    if (this.hub) throw new Error('the hub port is connected already');
    this.hub = hub;
  }

  logs(pod: Pod, options: LogOptions): Promise<LogChunk> {
    if (!this.hub) return Promise.reject(new KedgeError('Unavailable', 'the cloud hub is starting'));
    return this.hub.podLogs(pod.spec.nodeName!, podRef(pod), options);
  }

  open(pod: Pod, request: StreamRequest): Promise<PodStream> {
    if (!this.hub) return Promise.reject(new KedgeError('Unavailable', 'the cloud hub is starting'));
    return this.hub.streams.open(pod, request);
  }

  nodeUsages(): ReportedUsage[] {
    return this.hub?.nodeUsages() ?? [];
  }

  stats(): HubStats | undefined {
    return this.hub?.stats();
  }
}

/** The join paths, served before authentication once joining is up; until then a request to them is authenticated like any other. */
export class JoinPort implements NonNullable<ApiServerDeps['join']> {
  private handler: JoinHandler | undefined;

  connect(handler: JoinHandler): void {
    if (this.handler) throw new Error('the join port is connected already');
    this.handler = handler;
  }

  bodyLimit(path: string): number | undefined {
    return joinBodyLimit(path);
  }

  serve(req: ApiRequest, path: string): Promise<ApiResponse> | undefined {
    return this.handler?.(req, path);
  }
}

/** On a standby cloud, where pods' logs and streams go (hub-forwarding.ts); until election runs, nowhere: this cloud serves them. */
export class ForwardPort implements HubForward {
  private forward: HubForward['target'] | undefined;

  constructor(readonly caPem: string) {}

  connect(forward: HubForward['target']): void {
    if (this.forward) throw new Error('the forward port is connected already');
    this.forward = forward;
  }

  target(req: ApiRequest, pod?: Pod): Promise<ForwardTarget | undefined> {
    return this.forward ? this.forward(req, pod) : Promise.resolve(undefined);
  }
}
