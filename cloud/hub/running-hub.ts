import type { Clock } from '../../shared/clock.js';
import { KedgeError } from '../../shared/errors.js';
import type { LogChunk, LogOptions, ObjectRef } from '../../shared/protocol/envelope.js';
import type { StreamRequest } from '../../shared/protocol/streams.js';
import type { Pod } from '../../shared/types.js';
import type { AckLedger } from './ack-ledger.js';
import type { CloudHubHandle, HubStats, HubTables } from './cloud-hub.js';
import type { ReportedUsage } from './node-usages.js';
import type { HubPodStream } from './streams/cloud-stream.js';

const NO_STATS: HubStats = { malformed: 0, received: 0, sent: 0, logRequests: 0, resent: 0, acked: 0, sentBytes: 0 };
const NO_TABLES: HubTables = { pods: 0, sessions: 0, logRequests: 0, reportedConditions: 0, streams: 0, usages: 0, inFlight: 0, referenced: 0 };
const NOTHING: ReadonlyMap<string, ObjectRef> = new Map();

/** Why a cloud whose hub does not run answers nothing about edges: who does, if known. */
export function standbyMessage(leader: string | undefined): string {
  return leader === undefined ? "this cloud's hub is standby: no cloud's hub leads now" : `this cloud's hub is standby: the cloud "${leader}" serves the edges`;
}

/**
 * The cloud's hub as the rest of the cloud sees it (Cloud.hub, the API's HubPort): the hub that
 * runs now, on the cloud that holds the hub's Lease; while none runs (standby), no node is
 * connected, every figure is zero, the ledger is empty and read-only, and logs and streams are
 * Unavailable, saying why. Closing it closes nothing: each hub is closed by the term it ran for.
 */
export class RunningHub implements CloudHubHandle {
  private hub: CloudHubHandle | undefined;
  private changedAt: number;
  readonly streams = { open: (pod: Pod, request: StreamRequest): Promise<HubPodStream> => this.current().then((hub) => hub.streams.open(pod, request)) };

  constructor(
    private readonly clock: Clock,
    /** Why no hub runs here now. */
    private readonly whyNot: () => string,
  ) {
    this.changedAt = clock.now();
  }

  /** From now on `hub` serves. */
  serve(hub: CloudHubHandle): void {
    this.hub = hub;
    this.changedAt = this.clock.now();
  }

  /** From now on no hub serves (it is about to close). */
  standby(): void {
    this.hub = undefined;
    this.changedAt = this.clock.now();
  }

  get running(): boolean {
    return this.hub !== undefined;
  }

  /** Since when a hub runs, or none does (epoch ms). */
  get since(): number {
    return this.changedAt;
  }

  get ledger(): AckLedger {
    return this.hub?.ledger ?? this.standbyLedger;
  }

  stats(): HubStats {
    return this.hub?.stats() ?? { ...NO_STATS };
  }

  tables(): HubTables {
    return this.hub?.tables() ?? { ...NO_TABLES };
  }

  connectedNodes(): string[] {
    return this.hub?.connectedNodes() ?? [];
  }

  brokerLink(): { up: boolean; since: number } {
    return this.hub?.brokerLink() ?? { up: false, since: this.changedAt };
  }

  podLogs(node: string, ref: ObjectRef, options: LogOptions): Promise<LogChunk> {
    return this.current().then((hub) => hub.podLogs(node, ref, options));
  }

  nodeUsages(): ReportedUsage[] {
    return this.hub?.nodeUsages() ?? [];
  }

  async close(): Promise<void> {}

  private current(): Promise<CloudHubHandle> {
    return this.hub ? Promise.resolve(this.hub) : Promise.reject(new KedgeError('Unavailable', this.whyNot()));
  }

  private readonly standbyLedger: AckLedger = {
    held: () => NOTHING,
    get: () => undefined,
    nodes: () => [],
    record: () => this.readOnly(),
    forget: () => this.readOnly(),
    reset: () => this.readOnly(),
    drop: () => this.readOnly(),
  };

  private readOnly(): never {
    throw new KedgeError('Unavailable', `${this.whyNot()}: its ledger is read-only`);
  }
}
