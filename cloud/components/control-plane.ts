import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { Timing } from '../../shared/timing.js';
import type { ApiClient } from '../client/client.js';
import type { Controller } from '../controllers/controller.js';
import type { Informers } from '../informer/shared-informers.js';
import { apiEventRecorder } from '../controllers/events.js';
import { startScheduler } from '../scheduler/index.js';
import type { ComponentSet } from './component-set.js';

export const SCHEDULER = 'scheduler';
export const CONTROLLER_MANAGER = 'controller-manager';

export interface ControlPlaneDeps {
  api: ApiClient;
  /** Shared with the hub: one watch per resource for the whole cloud. */
  informers: Informers;
  clock: Clock;
  timing: Timing;
  logger: Logger;
  controllers: readonly Controller[];
  /** Components registered but not started (`kedge cloud --disable`). */
  disabled?: ReadonlySet<string>;
}

/** The names `--disable` and `kedge component` accept, for a controller list. */
export function controlPlaneNames(controllers: readonly Controller[]): string[] {
  return [SCHEDULER, CONTROLLER_MANAGER, ...controllers.map((c) => c.name)];
}

/**
 * Registers the scheduler, the controller-manager and each of its controllers as components.
 * Each holds its own subscriptions to the shared informers, so stopping one leaves the others and the API untouched.
 */
export function addControlPlane(set: ComponentSet, deps: ControlPlaneDeps): void {
  const { api, informers, clock, timing, logger } = deps;
  const disabled = deps.disabled ?? new Set<string>();
  const known = new Set(controlPlaneNames(deps.controllers));
  for (const name of disabled) if (!known.has(name)) throw new Error(`cannot disable "${name}": no such component (known: ${[...known].join(', ')})`);
  // Each component names its own logger (startScheduler and every controller call `child`).
  set.add({
    name: SCHEDULER,
    start: () => startScheduler({ api, informers, clock, logger, events: apiEventRecorder(api, clock, 'default-scheduler', logger.child(SCHEDULER)) }),
  }, !disabled.has(SCHEDULER));
  set.add({ name: CONTROLLER_MANAGER, start: async () => ({ close: async () => {} }) }, !disabled.has(CONTROLLER_MANAGER));
  for (const controller of deps.controllers) {
    const events = apiEventRecorder(api, clock, `${controller.name}-controller`, logger.child(controller.name));
    set.add({ name: controller.name, parent: CONTROLLER_MANAGER, start: () => controller.start({ api, informers, clock, timing, logger, events }) }, !disabled.has(controller.name));
  }
}
