export { startCloudElection, HUB_LOCK, type CloudElection, type Elect } from './cloud-election.js';
export { electionTimingError, JITTER_FACTOR, type ElectionTiming } from './config.js';
export { startLeaderElection } from './elector.js';
export type { HeldRecord, LeaderElectionDeps, LeaderElector } from './leader-elector.js';
export { loadOrCreateIdentity } from './identity.js';
export type { LockName } from './lease-lock.js';

/** The Leases kube's components elect their leaders with. */
export const SCHEDULER_LOCK = { namespace: 'kube-system', name: 'kube-scheduler' } as const;
export const CONTROLLER_MANAGER_LOCK = { namespace: 'kube-system', name: 'kube-controller-manager' } as const;
