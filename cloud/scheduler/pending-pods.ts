import type { Pod } from '../../shared/types.js';

/** Which pods the scheduler takes, and which of their changes matter to it. */

const TERMINAL = new Set(['Succeeded', 'Failed']);

export const isTerminal = (pod: Pod): boolean => TERMINAL.has(pod.status?.phase ?? '');

/** The pod waits for this scheduler: unbound, naming it, not being deleted, not finished. */
export const awaitsScheduling = (pod: Pod, schedulerName: string): boolean =>
  !pod.spec.nodeName && (pod.spec.schedulerName ?? 'default-scheduler') === schedulerName && !pod.metadata.deletionTimestamp && !isTerminal(pod);

/** Whether an update left what scheduling reads unchanged (spec, labels, annotations). */
export const sameSchedulingInputs = (a: Pod, b: Pod): boolean =>
  (a.spec === b.spec && a.metadata.labels === b.metadata.labels && a.metadata.annotations === b.metadata.annotations) ||
  JSON.stringify([a.spec, a.metadata.labels, a.metadata.annotations]) === JSON.stringify([b.spec, b.metadata.labels, b.metadata.annotations]);
