import type { ComponentState } from './kube.js';

export type ComponentCondition = 'up' | 'down' | 'unhealthy';

export interface ComponentRow {
  name: string;
  parent?: string;
  condition: ComponentCondition;
  /** "up", "down since 12:03:04", "unhealthy: not connected to the broker". */
  message: string;
  since: string;
  running: boolean;
  stoppable: boolean;
}

export function componentRow(c: ComponentState): ComponentRow {
  const condition: ComponentCondition = !c.running ? 'down' : c.healthy ? 'up' : 'unhealthy';
  const row: ComponentRow = {
    name: c.name,
    condition,
    message: condition === 'up' ? '' : c.message,
    since: c.since,
    running: c.running,
    stoppable: c.stoppable,
  };
  if (c.parent !== undefined) row.parent = c.parent;
  return row;
}
