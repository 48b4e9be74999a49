import { BehaviorSubject, distinctUntilChanged, type Observable } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { ApiClient } from '../client/client.js';
import { apiEventRecorder, type EventRecorder } from '../controllers/events.js';
import { electionTimingError, jitteredRetryMs, leaseDurationSeconds, type ElectionTiming } from './config.js';
import { heldBy, leaseValid, observe, planAttempt, release, renewal, type Candidate, type Observed } from './decide.js';
import { LeaseLock, type LockName } from './lease-lock.js';
import { rawRecord, recordOf, type LeaderRecord } from './record.js';

/** One candidate for one lock: the scheduler's, the controller-manager's, the hub's. */
export interface LeaderElector {
  /** `<hostname>_<uuid>`, as written in the Lease's holderIdentity. */
  readonly identity: string;
  /** Whether this candidate leads; distinct, starts false. */
  readonly leading$: Observable<boolean>;
  /** The holder last seen (this one while it leads); undefined when none was seen. */
  leader(): string | undefined;
  /** Starts campaigning (startLeaderElection already has); no-op while it runs. */
  start(): void;
  /** Stops campaigning and, if it holds the lock, releases it (client-go's ReleaseOnCancel). */
  close(): Promise<void>;
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

/** What one tryAcquireOrRenew came to: holding the lock, another holding it, or an error. */
type TryResult = 'held' | 'taken' | 'failed';

/**
 * Lease-based leader election as client-go 1.32 runs it. Acquiring: a try at once, then every
 * retryPeriod with jitter. Leading: a renewal every retryPeriod; a renewal that does not succeed
 * within renewDeadline (retried every retryPeriod) ends the term, as does seeing another holder.
 * Resolves after the first try, so a lone candidate leads on return.
 */
export async function startLeaderElection(deps: LeaderElectionDeps): Promise<LeaderElector> {
  const problem = electionTimingError(deps.timing);
  if (problem) throw new Error(`leader election for ${deps.lock.namespace}/${deps.lock.name}: ${problem}`);
  const elector = new LeaseElector(deps);
  await elector.begin();
  return elector;
}

class LeaseElector implements LeaderElector {
  readonly identity: string;
  private readonly leading = new BehaviorSubject(false);
  readonly leading$ = this.leading.pipe(distinctUntilChanged());
  private readonly lock: LeaseLock;
  private readonly self: Candidate;
  private readonly events: EventRecorder;
  private observed: Observed | undefined;
  private abort: AbortController | undefined;
  private loop: Promise<void> = Promise.resolve();
  private firstTry: Promise<void> = Promise.resolve();
  private inflight: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: LeaderElectionDeps) {
    this.identity = deps.identity;
    this.lock = new LeaseLock(deps.api, deps.lock);
    this.self = { identity: deps.identity, leaseDurationSeconds: leaseDurationSeconds(deps.timing), timeScale: deps.timing.timeScale };
    this.events = deps.events ?? apiEventRecorder(deps.api, deps.clock, deps.lock.name, deps.logger);
  }

  leader(): string | undefined {
    return this.observed?.record.holderIdentity || undefined;
  }

  async begin(): Promise<void> {
    this.start();
    await this.firstTry;
  }

  start(): void {
    if (this.abort) return;
    const abort = new AbortController();
    this.abort = abort;
    let tried!: () => void;
    this.firstTry = new Promise((resolve) => (tried = resolve));
    this.loop = this.campaign(abort.signal, tried).catch((err: unknown) => {
      if (!abort.signal.aborted) this.deps.logger.error('leader election stopped', { lease: this.lock.describe(), error: String(err) });
    });
  }

  async close(): Promise<void> {
    const abort = this.abort;
    if (!abort) return;
    abort.abort();
    await this.loop;
    await this.inflight;
    this.abort = undefined;
    this.stepDown();
    if (heldBy(this.observed, this.identity)) await this.write(release(this.observed!, this.deps.clock.now())).catch((err: unknown) => this.deps.logger.warn('failed to release lock', { lease: this.lock.describe(), error: String(err) }));
  }

  /** Acquire, lead until the term ends, and again, until aborted. */
  private async campaign(signal: AbortSignal, tried: () => void): Promise<void> {
    try {
      await this.tryToLead(signal);
    } finally {
      tried();
    }
    for (;;) {
      if (this.leading.value) {
        await this.renewWhileLeading(signal);
        this.stepDown();
      }
      await this.deps.clock.sleep(jitteredRetryMs(this.deps.timing.retryPeriodMs, this.deps.random ?? Math.random), signal);
      await this.tryToLead(signal);
    }
  }

  private async tryToLead(signal: AbortSignal): Promise<void> {
    const result = await this.attempt();
    if (result === 'held' && !signal.aborted) this.lead();
  }

  /** Returns when the term ends: a renewal failed for renewDeadline, or another holds the lock. */
  private async renewWhileLeading(signal: AbortSignal): Promise<void> {
    const { clock, timing, logger } = this.deps;
    for (;;) {
      await clock.sleep(timing.retryPeriodMs, signal);
      const deadline = clock.now() + timing.renewDeadlineMs;
      for (;;) {
        const result = await this.beforeDeadline(this.attempt(), deadline);
        if (signal.aborted) return;
        if (result === 'held') break;
        if (result === 'taken' || clock.now() >= deadline) {
          logger.info('failed to renew lease', { lease: this.lock.describe(), reason: result === 'taken' ? `held by ${this.leader()}` : 'timed out waiting for the condition' });
          return;
        }
        await clock.sleep(Math.min(timing.retryPeriodMs, deadline - clock.now()), signal);
      }
    }
  }

  /** The try's result, or 'failed' once the deadline passes on the clock while it is still out. */
  private beforeDeadline(attempt: Promise<TryResult>, deadline: number): Promise<TryResult> {
    let cancel = (): void => {};
    const late = new Promise<TryResult>((resolve) => (cancel = this.deps.clock.setTimer(deadline - this.deps.clock.now(), () => resolve('failed'))));
    return Promise.race([attempt, late]).finally(cancel);
  }

  /** One try; close waits for the one in flight before it releases. */
  private attempt(): Promise<TryResult> {
    const result = this.tryAcquireOrRenew();
    this.inflight = result;
    return result;
  }

  private async tryAcquireOrRenew(): Promise<TryResult> {
    const { clock, logger } = this.deps;
    const now = clock.now();
    // Fast path: the holder renews against the Lease it last wrote, without reading it first.
    if (heldBy(this.observed, this.identity) && leaseValid(this.observed!, now, this.self.timeScale)) {
      try {
        await this.write(renewal(this.observed!, this.self, now));
        return 'held';
      } catch (err) {
        logger.debug('failed to update lock optimistically, falling back to slow path', { lease: this.lock.describe(), error: String(err) });
      }
    }
    try {
      const lease = await this.lock.get();
      if (lease) this.observed = observe(this.observed, recordOf(lease), clock.now());
      const plan = planAttempt(lease && this.observed, this.self, clock.now());
      if (plan.kind === 'wait') return 'taken';
      await this.write(plan.record, plan.kind === 'create');
      return 'held';
    } catch (err) {
      logger.debug('failed to acquire or renew lease', { lease: this.lock.describe(), error: String(err) });
      return 'failed';
    }
  }

  private async write(record: LeaderRecord, create = false): Promise<void> {
    await (create ? this.lock.create(record) : this.lock.update(record));
    this.observed = { record, raw: rawRecord(record), at: this.deps.clock.now() };
  }

  private lead(): void {
    if (this.leading.value) return;
    this.deps.logger.info('successfully acquired lease', { lease: this.lock.describe(), identity: this.identity });
    this.leading.next(true);
    this.record(`${this.identity} became leader`);
  }

  private stepDown(): void {
    if (!this.leading.value) return;
    this.deps.logger.info('stopped leading', { lease: this.lock.describe(), identity: this.identity });
    this.leading.next(false);
    this.record(`${this.identity} stopped leading`);
  }

  private record(message: string): void {
    const lease = this.lock.last;
    if (lease) this.events.record(lease, 'Normal', 'LeaderElection', message);
  }
}
