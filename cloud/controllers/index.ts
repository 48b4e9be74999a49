import type { Controller } from './controller.js';

/** The controller-manager's loops, in start order. */
export function defaultControllers(): Controller[] {
  return [];
}

export type { Controller, ControllerContext, RunningController } from './controller.js';
