import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { Timing } from '../../shared/timing.js';
import type { ApiClient } from '../client/client.js';
import type { Controller } from '../controllers/controller.js';
import type { Informers } from '../informer/shared-informers.js';
import { apiEventRecorder } from '../controllers/events.js';
import { startScheduler } from '../scheduler/index.js';
import { CONTROLLER_MANAGER_LOCK, SCHEDULER_LOCK, type Elect } from '../leaderelection/index.js';
import type { ComponentDef } from './component.js';
import type { ComponentSet } from './component-set.js';
import { LeaderGate, type GatedHandle } from './leader-gate.js';

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
  /** Leader election (`--leader-elect`): the scheduler and the controller-manager each run only while their candidate leads. None: they run unconditionally. */
  elect?: Elect;
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
  const scheduler = deps.elect && new LeaderGate(deps.elect, SCHEDULER_LOCK, clock, logger.child(SCHEDULER));
  const runScheduler = () => startScheduler({ api, informers, clock, logger, events: apiEventRecorder(api, clock, 'default-scheduler', logger.child(SCHEDULER)) });
  set.add(campaigning({ name: SCHEDULER, start: runScheduler }, scheduler), !disabled.has(SCHEDULER));
  const manager = deps.elect && new LeaderGate(deps.elect, CONTROLLER_MANAGER_LOCK, clock, logger.child(CONTROLLER_MANAGER));
  set.add(campaigning({ name: CONTROLLER_MANAGER, start: async () => ({ close: async () => {} }) }, manager), !disabled.has(CONTROLLER_MANAGER));
  for (const controller of deps.controllers) {
    const events = apiEventRecorder(api, clock, `${controller.name}-controller`, logger.child(controller.name));
    const start = () => controller.start({ api, informers, clock, timing, logger, events });
    set.add(following({ name: controller.name, parent: CONTROLLER_MANAGER, start }, manager), !disabled.has(controller.name));
  }
}

/** A component that campaigns for its gate's Lease when started, and works only while it leads. */
function campaigning(def: ComponentDef, gate: LeaderGate | undefined): ComponentDef {
  if (!gate) return def;
  let current: GatedHandle | undefined;
  return { ...def, start: async () => (current = await gate.campaign(def.start)), health: () => gate.health(current) };
}

/** A controller that works only while its controller-manager leads. */
function following(def: ComponentDef, gate: LeaderGate | undefined): ComponentDef {
  if (!gate) return def;
  let current: GatedHandle | undefined;
  return { ...def, start: async () => (current = await gate.follow(def.start)), health: () => gate.health(current) };
}
