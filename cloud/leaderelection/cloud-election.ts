import { BehaviorSubject, type Observable } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { ApiClient } from '../client/client.js';
import type { ElectionTiming } from './config.js';
import { startLeaderElection } from './elector.js';
import type { HeldRecord, LeaderElector } from './leader-elector.js';
import { loadOrCreateIdentity } from './identity.js';
import type { LockName } from './lease-lock.js';

/** Starts a candidate for a lock; resolves after its first try (so a lone cloud leads on return). */
export type Elect = (lock: LockName) => Promise<LeaderElector>;

export const HUB_LOCK = { namespace: 'kube-system', name: 'kedge-hub' } as const satisfies LockName;
/** Where the other clouds reach the API of the cloud that holds the hub's Lease (hub-forwarding.ts): its holder writes it with each renewal. */
export const API_URL_ANNOTATION = 'kedge.io/api-url';

/** A cloud's part in leader election (`kedge cloud --leader-elect`). */
export interface CloudElection {
  /** Starts candidates for the scheduler and the controller-manager; undefined with election off. */
  elect?: Elect;
  /** Whether this cloud's hub leads (always true with election off). */
  hubLeading$: Observable<boolean>;
  /** This cloud's identity in the Leases; undefined with election off. */
  identity?: string;
  /** The hub Lease's holder last seen; undefined with election off or none seen. */
  hubLeader(): string | undefined;
  /** The hub Lease's record this cloud last wrote as its holder (LeaderElector.held); undefined with election off. */
  hubHeld(): HeldRecord | undefined;
  /** Releases the hub's Lease if held. */
  close(): Promise<void>;
}

export interface CloudElectionDeps {
  enabled: boolean;
  dataDir: string;
  api: ApiClient;
  clock: Clock;
  timing: ElectionTiming;
  logger: Logger;
  /** This cloud's API as the other clouds reach it, marked on the hub's Lease while this cloud holds it. */
  apiUrl?: string;
  /** The candidates' retry jitter; default Math.random. */
  random?: () => number;
}

/** Every candidate of one cloud has the cloud's identity, so `kubectl get leases -n kube-system` tells which cloud leads what. */
export async function startCloudElection(deps: CloudElectionDeps): Promise<CloudElection> {
  if (!deps.enabled) return { hubLeading$: new BehaviorSubject(true), hubLeader: () => undefined, hubHeld: () => undefined, close: async () => {} };
  const identity = await loadOrCreateIdentity(deps.dataDir);
  const elect: Elect = (lock) => startLeaderElection({ api: deps.api, clock: deps.clock, timing: deps.timing, logger: deps.logger, lock, identity, ...(deps.random && { random: deps.random }) });
  const hub = await elect(deps.apiUrl === undefined ? HUB_LOCK : { ...HUB_LOCK, annotations: { [API_URL_ANNOTATION]: deps.apiUrl } });
  return { elect, identity, hubLeading$: hub.leading$, hubLeader: () => hub.leader(), hubHeld: () => hub.held(), close: () => hub.close() };
}
