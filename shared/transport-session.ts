import { BehaviorSubject, Subject, type Observable } from 'rxjs';
import { reconnectDelay } from './backoff.js';
import type { Cancel, Clock } from './clock.js';
import type { Logger } from './log.js';
import { credentialRefused, credentialRetryMs } from './mqtt-refusals.js';
import type { Connectivity, ReconnectTiming, SessionSpec, TransportMessage } from './transport.js';

export interface TransportSessionOptions extends ReconnectTiming {
  clock: Clock;
  logger: Logger;
  /** Logged when the broker refuses the credential, once per run of refusals. */
  credentialRefusedMessage: string;
}

/**
 * What every Transport keeps about its sessions whatever carries them: the connectivity and
 * inbound streams, when the broker was last heard, and when to try again after a session
 * ends (backoff with jitter on the Clock; a refused credential slowly). A transport calls
 * `connect` to open one attempt; it reports back through `heard`, `deliver`, `established`,
 * `failed` and `lost`.
 */
export class TransportSession {
  private readonly state: BehaviorSubject<Connectivity>;
  private readonly messages = new Subject<TransportMessage>();
  private started: SessionSpec | undefined;
  private attempt = 0;
  private cancelRetry: Cancel | undefined;
  private stopped = false;
  private closing: Promise<void> | undefined;
  private heardAt: number | undefined;
  /** The broker said our credential is bad (CONNACK 4 or 5): retried, but slowly. */
  private refused = false;

  constructor(
    private readonly options: TransportSessionOptions,
    private readonly connect: () => void,
  ) {
    this.state = new BehaviorSubject<Connectivity>({ connected: false, since: options.clock.now() });
  }

  get connectivity$(): Observable<Connectivity> {
    return this.state.asObservable();
  }

  get connectivity(): Connectivity {
    return this.state.value;
  }

  get inbound$(): Observable<TransportMessage> {
    return this.messages.asObservable();
  }

  get lastHeard(): number | undefined {
    return this.heardAt;
  }

  /** Whether close() was called: nothing connects again. */
  get closed(): boolean {
    return this.stopped;
  }

  /** What every session follows; start() must have run. */
  get spec(): SessionSpec {
    if (!this.started) throw new Error('the transport is not started');
    return this.started;
  }

  start(spec: SessionSpec): void {
    if (this.started) throw new Error('the transport is started already');
    this.started = spec;
    if (!this.stopped) this.connect();
  }

  heard(): void {
    this.heardAt = this.options.clock.now();
  }

  deliver(message: TransportMessage): void {
    this.messages.next(message);
  }

  /** The session is set up: the transport counts as connected, and the backoff starts over. */
  established(): void {
    this.attempt = 0;
    this.refused = false;
    this.setConnected(true);
  }

  /** Notes why an attempt failed; returns whether the broker refused the credential (logged on the first refusal in a row). */
  failed(err: Error & { code?: unknown }): boolean {
    const refused = credentialRefused(err);
    if (refused && !this.refused) this.options.logger.error(this.options.credentialRefusedMessage, { error: err.message, retryMs: this.credentialRetryMs() });
    this.refused = refused;
    return refused;
  }

  /** The session (or attempt) ended: disconnected, and unless closed, `connect` runs again after the backoff. */
  lost(): void {
    this.setConnected(false);
    if (this.stopped) return;
    const { reconnectMinMs, reconnectMaxMs, random, clock } = this.options;
    const delay = this.refused ? this.credentialRetryMs() : reconnectDelay(this.attempt++, reconnectMinMs, reconnectMaxMs, random);
    this.cancelRetry = clock.setTimer(delay, () => {
      this.cancelRetry = undefined;
      if (!this.stopped) this.connect();
    });
  }

  /**
   * Stops reconnecting, runs `end` (the transport's own goodbye), then disconnects and completes
   * both streams. Idempotent: later calls return the first one's promise. A synchronous `end`
   * completes the streams before close returns.
   */
  close(end: () => void | Promise<void>): Promise<void> {
    return (this.closing ??= this.shutdown(end));
  }

  private async shutdown(end: () => void | Promise<void>): Promise<void> {
    this.stopped = true;
    this.cancelRetry?.();
    const ending = end();
    if (ending) await ending;
    this.setConnected(false);
    this.messages.complete();
    this.state.complete();
  }

  private credentialRetryMs(): number {
    return credentialRetryMs(this.options.reconnectMaxMs);
  }

  private setConnected(connected: boolean): void {
    if (this.state.value.connected === connected || this.state.closed) return;
    this.state.next({ connected, since: this.options.clock.now() });
  }
}
