import type { Observable } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { ApiClient } from '../client/client.js';
import type { EventRecorder } from '../controllers/events.js';
import type { ElectionTiming } from './config.js';
import type { LockName } from './lease-lock.js';

/** One candidate for one lock: the scheduler's, the controller-manager's, the hub's. */
export interface LeaderElector {
  /** `<hostname>_<uuid>`, as written in the Lease's holderIdentity. */
  readonly identity: string;
  /** Whether this candidate leads; distinct, starts false. */
  readonly leading$: Observable<boolean>;
  /** The holder last seen (this one while it leads); undefined when none was seen. */
  leader(): string | undefined;
  /**
   * The last record this candidate wrote as the holder, and when it landed (local clock): with
   * the same leaseTransitions at a later win, nobody else held the Lease in between (every
   * write is a compare-and-swap).
   */
  held(): HeldRecord | undefined;
  /** Starts campaigning (startLeaderElection already has); no-op while it runs. */
  start(): void;
  /** Stops campaigning and, if it holds the lock, releases it (client-go's ReleaseOnCancel). */
  close(): Promise<void>;
}

export interface HeldRecord {
  at: number;
  leaseTransitions: number;
}

export interface LeaderElectionDeps {
  api: ApiClient;
  clock: Clock;
  timing: ElectionTiming;
  logger: Logger;
  lock: LockName;
  identity: string;
  /** For the acquirer's jitter; default Math.random. */
  random?: () => number;
  /** Where `became leader` / `stopped leading` go; default Events through `api`, from the lock's name. */
  events?: EventRecorder;
}
