import { BehaviorSubject, distinctUntilChanged } from 'rxjs';
import { apiEventRecorder, type EventRecorder } from '../controllers/events.js';
import { electionTimingError, jitteredRetryMs, leaseDurationSeconds } from './config.js';
import { heldBy, leaseValid, observe, planAttempt, release, renewal, type Candidate, type Observed } from './decide.js';
import { LeaseLock } from './lease-lock.js';
import type { HeldRecord, LeaderElectionDeps, LeaderElector } from './leader-elector.js';
import { rawRecord, recordOf, type LeaderRecord } from './record.js';

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
  private ownWrite: HeldRecord | undefined;
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

  held(): HeldRecord | undefined {
    return this.ownWrite;
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
    const { clock, timing, logger } = this.deps;
    // As client-go's release: within the renew deadline, after the try in flight (which could renew after it).
    const deadline = clock.now() + timing.renewDeadlineMs;
    await this.within(this.inflight, deadline);
    this.abort = undefined;
    this.stepDown();
    if (!heldBy(this.observed, this.identity)) return;
    const released = this.write(release(this.observed!, clock.now())).catch((err: unknown) => logger.warn('failed to release lock', { lease: this.lock.describe(), error: String(err) }));
    await this.within(released, deadline);
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
    const result = await this.attempt(this.deps.clock.now() + this.deps.timing.renewDeadlineMs, signal);
    if (result === 'held' && !signal.aborted) this.lead();
  }

  /** Returns when the term ends: a renewal failed for renewDeadline, or another holds the lock. */
  private async renewWhileLeading(signal: AbortSignal): Promise<void> {
    const { clock, timing, logger } = this.deps;
    for (;;) {
      await clock.sleep(timing.retryPeriodMs, signal);
      const deadline = clock.now() + timing.renewDeadlineMs;
      for (;;) {
        const result = await this.attempt(deadline, signal);
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

  /** One try, 'failed' once `deadline` passes on the clock or the campaign ends while it is still out (a hung API holds up nothing). */
  private attempt(deadline: number, signal: AbortSignal): Promise<TryResult> {
    const result = this.tryAcquireOrRenew();
    this.inflight = result;
    return this.within(result, deadline, signal);
  }

  private within<T>(work: Promise<T>, deadline: number, signal?: AbortSignal): Promise<T | 'failed'> {
    let cancel = (): void => {};
    const late = new Promise<'failed'>((resolve) => {
      const cancelTimer = this.deps.clock.setTimer(deadline - this.deps.clock.now(), () => resolve('failed'));
      const onAbort = (): void => resolve('failed');
      signal?.addEventListener('abort', onAbort, { once: true });
      cancel = () => (cancelTimer(), signal?.removeEventListener('abort', onAbort));
    });
    return Promise.race([work, late]).finally(cancel);
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
    if (record.holderIdentity === this.identity) this.ownWrite = { at: this.observed.at, leaseTransitions: record.leaseTransitions };
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
