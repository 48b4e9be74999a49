import { KedgeError } from '../shared/errors.js';
import type { LogChunk, LogOptions } from '../shared/protocol/envelope.js';
import type { Pod } from '../shared/types.js';
import type { ApiRequest, ApiResponse, ApiServerDeps } from './apiserver/index.js';
import type { CloudHubHandle, HubStats } from './hub/index.js';
import type { ReportedUsage } from './hub/node-usages.js';
import { podRef } from './hub/resync.js';
import { joinBodyLimit, type JoinHandler } from './join/index.js';

// The hub and the join service are clients of the apiserver (they need its loopback client), so
// they start after it; yet it serves their paths. It holds these ports, each connected once its
// part is up.

/** Pod logs, usage reports and the hub's figures for /metrics: until the hub is up, logs are Unavailable, no node has usage and /metrics has no hub lines. */
export class HubPort implements NonNullable<ApiServerDeps['podLogs']>, NonNullable<ApiServerDeps['usage']> {
  private hub: Pick<CloudHubHandle, 'podLogs' | 'stats' | 'nodeUsages'> | undefined;

  connect(hub: Pick<CloudHubHandle, 'podLogs' | 'stats' | 'nodeUsages'>): void {
    if (this.hub) throw new Error('the hub port is connected already');
    this.hub = hub;
  }

  logs(pod: Pod, options: LogOptions): Promise<LogChunk> {
    if (!this.hub) return Promise.reject(new KedgeError('Unavailable', 'the cloud hub is starting'));
    return this.hub.podLogs(pod.spec.nodeName!, podRef(pod), options);
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
