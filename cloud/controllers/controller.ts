import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { Timing } from '../../shared/timing.js';
import type { ApiClient } from '../client/client.js';
import type { Informers } from '../informer/shared-informers.js';
import type { EventRecorder } from './events.js';

/** What every control loop receives: the loopback API and its shared informers, time, the timing profile, a logger and an event sink. */
export interface ControllerContext {
  api: ApiClient;
  informers: Informers;
  clock: Clock;
  timing: Timing;
  logger: Logger;
  events: EventRecorder;
}

/** A started control loop. `close` stops its watches, timers and workers and resolves when they are gone. */
export interface RunningController {
  close(): Promise<void>;
}

/**
 * One level-triggered control loop of the controller-manager (node-lifecycle, deployment,
 * replicaset, …). Each is split into a pure plan and a thin apply; `start` wires them to
 * informers and a key queue and resolves once its caches hold their first list.
 */
export interface Controller {
  readonly name: string;
  start(ctx: ControllerContext): Promise<RunningController>;
}
