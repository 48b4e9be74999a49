import { randomUUID } from 'node:crypto';
import { BehaviorSubject, combineLatest, distinctUntilChanged, map, type Observable } from 'rxjs';
import type { Clock } from '../shared/clock.js';
import type { Counters } from '../shared/counters.js';
import type { Logger } from '../shared/log.js';
import type { Timing } from '../shared/timing.js';
import type { Transport, TransportFactory } from '../shared/transport.js';
import type { ApiClient } from './client/client.js';
import type { ComponentHandle } from './components/component.js';
import type { EventRecorder } from './controllers/events.js';
import { CLOUD_USERNAME, cloudClientId, NodeSyncLedger, startCloudHub } from './hub/index.js';
import { RunningHub } from './hub/running-hub.js';
import { HubLead } from './components/hub-lead.js';
import { whileLeading, type GatedHandle } from './components/while-leading.js';
import { hubTenure, type Tenure } from './components/hub-tenure.js';
import type { CloudElection } from './leaderelection/index.js';
import type { Informers } from './informer/shared-informers.js';
import type { PodStartupTrace } from '../shared/trace/pod-startup-trace.js';

/** Part of the cloud's composition root (main.ts): the hub, for each term of the hub's Lease. */

export interface HubTermDeps {
  api: ApiClient;
  apiAsNode(node: string): ApiClient;
  informers: Informers;
  clock: Clock;
  timing: Timing;
  logger: Logger;
  events: EventRecorder;
  counters: Counters;
  /** The cloud's: aborted when the cloud stops. */
  signal: AbortSignal;
  /** The hub's client of the broker, made anew for each term (its own client id). */
  transport: TransportFactory;
  /** The hub's broker password. */
  password: string;
  /** Where each term's hub notes pod startups (default: nowhere). */
  trace?: PodStartupTrace;
}

/** The hub as the cloud serves it, what it says about the hub's Lease (with election on), and what stops it. */
export interface HubOnLeader {
  hub: RunningHub;
  lead?: HubLead;
  close(): Promise<void>;
}

/**
 * Runs the hub on this cloud only while it leads the hub's Lease (always, with election off).
 * Resolves once the current lead is acted on; fails if the hub fails to start on it (a lone
 * cloud leads on return of startCloudElection).
 */
export async function runHubWhileLeading(deps: HubTermDeps, election: CloudElection, running: HubRunning): Promise<HubOnLeader> {
  const started: { term?: GatedHandle } = {};
  let lead: HubLead | undefined;
  const hub = new RunningHub(deps.clock, () => lead?.whyNot() ?? 'the cloud hub is starting');
  if (election.identity !== undefined) lead = new HubLead({ identity: election.identity, leading$: election.hubLeading$, leader: () => election.hubLeader() }, hub, () => started.term?.failure());
  const tenure = followTenure(election, deps, running);
  const term = (started.term = await whileLeading(tenure.serving$, hubTerm(deps, hub, running), deps.logger));
  const close = async (): Promise<void> => {
    tenure.close();
    await term.close();
    running.release();
    lead?.close();
  };
  const failure = term.failure();
  if (failure !== undefined) {
    await close();
    throw new Error(`the cloud hub did not start: ${failure}`);
  }
  return { hub, lead, close };
}

/**
 * Whether the hub runs (true once it is subscribed at the broker, false before it closes), or its
 * nodes are held for its next term (hubTenure's `held`, until that term's hub runs). The
 * embedded broker admits nodes only meanwhile (and while `also`, if given), and keeps them
 * connected when a hub leaves only while they are held.
 */
export class HubRunning {
  private readonly running = new BehaviorSubject(false);
  private readonly holding = new BehaviorSubject(false);

  set(running: boolean): void {
    this.running.next(running);
    if (running) this.release();
  }

  /** Keeps the nodes for the next term: from before this term's hub closes until the next one runs. */
  hold(): void {
    this.holding.next(true);
  }

  release(): void {
    if (this.holding.value) this.holding.next(false);
  }

  get holdsNodes(): boolean {
    return this.holding.value;
  }

  nodesAdmitted$(also?: Observable<boolean>): Observable<boolean> {
    const sources = [this.running, this.holding, ...(also ? [also] : [])];
    return combineLatest(sources).pipe(map(([running, holding, admitted = true]) => (running! || holding!) && admitted), distinctUntilChanged());
  }
}

/**
 * With election on, the hub's tenure (hubTenure) drives the hub and holds its nodes through a
 * late renewal; with election off, the hub always serves.
 */
function followTenure(election: CloudElection, deps: Pick<HubTermDeps, 'clock' | 'timing'>, running: HubRunning): { serving$: Observable<boolean>; close(): void } {
  if (election.identity === undefined) return { serving$: election.hubLeading$, close: () => {} };
  const tenure = new BehaviorSubject<Tenure>('off');
  const candidate = { identity: election.identity, leading$: election.hubLeading$, leader: () => election.hubLeader(), held: () => election.hubHeld() };
  const feed = hubTenure(candidate, deps.clock, deps.timing.leaseDurationMs, deps.timing.retryPeriodMs).subscribe((next) => {
    if (next === 'held') running.hold(); // before the hub closes: its nodes stay
    if (next === 'off') running.release();
    tenure.next(next);
  });
  return { serving$: tenure.pipe(map((t) => t === 'serving'), distinctUntilChanged()), close: () => feed.unsubscribe() };
}

/**
 * One term of the hub's Lease: the ack ledger loaded fresh from the store (another cloud's hub
 * may have written it since), a new client of the broker with a new envelope epoch, and the hub;
 * closing the term stops admitting nodes first, then closes the hub and the ledger.
 */
function hubTerm(deps: HubTermDeps, served: RunningHub, running: HubRunning): (term: AbortSignal) => Promise<ComponentHandle> {
  const { api, clock, logger } = deps;
  return async (term) => {
    const signal = AbortSignal.any([deps.signal, term]);
    // Registered before the hub's own listener: nodes are dropped before the hub closes.
    signal.addEventListener('abort', () => running.set(false), { once: true });
    const ledger = await NodeSyncLedger.load({ api, clock, logger: logger.child('ledger') }).catch((err: unknown) => {
      running.release(); // nodes held for this term go
      throw err;
    });
    const epoch = randomUUID().slice(0, 8);
    let transport: Transport | undefined;
    try {
      signal.throwIfAborted();
      transport = deps.transport({ clientId: cloudClientId(epoch), username: CLOUD_USERNAME, password: deps.password });
      const { apiAsNode, informers, timing, events, counters, trace } = deps;
      const hub = await startCloudHub({ api, apiAsNode, informers, clock, timing, logger, events, counters, transport, epoch, ledger, signal, trace });
      served.serve(hub);
      running.set(true);
      return {
        close: async () => {
          running.set(false);
          served.standby();
          await hub.close();
          await ledger.close();
        },
      };
    } catch (err) {
      running.release(); // nodes held for this term go
      await transport?.close().catch(() => undefined);
      await ledger.close();
      throw err;
    }
  };
}
