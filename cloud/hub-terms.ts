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
import type { CloudElection } from './leaderelection/index.js';
import type { Informers } from './informer/shared-informers.js';

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
  const term = (started.term = await whileLeading(election.hubLeading$, hubTerm(deps, hub, running), deps.logger));
  const close = async (): Promise<void> => {
    await term.close();
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
 * Whether the hub of a term runs: true once it is subscribed at the broker, false before it
 * closes. The embedded broker admits nodes only while it is true (and `also`, if given).
 */
export class HubRunning {
  private readonly value = new BehaviorSubject(false);
  readonly running$: Observable<boolean> = this.value.pipe(distinctUntilChanged());

  set(running: boolean): void {
    this.value.next(running);
  }

  nodesAdmitted$(also?: Observable<boolean>): Observable<boolean> {
    if (!also) return this.running$;
    return combineLatest([this.running$, also]).pipe(map(([running, admitted]) => running && admitted), distinctUntilChanged());
  }
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
    const ledger = await NodeSyncLedger.load({ api, clock, logger: logger.child('ledger') });
    const epoch = randomUUID().slice(0, 8);
    let transport: Transport | undefined;
    try {
      signal.throwIfAborted();
      transport = deps.transport({ clientId: cloudClientId(epoch), username: CLOUD_USERNAME, password: deps.password });
      const { apiAsNode, informers, timing, events, counters } = deps;
      const hub = await startCloudHub({ api, apiAsNode, informers, clock, timing, logger, events, counters, transport, epoch, ledger, signal });
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
      await transport?.close().catch(() => undefined);
      await ledger.close();
      throw err;
    }
  };
}
