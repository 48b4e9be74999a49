import type { KubeObject, WatchEvent } from './kube.js';

/** Objects of one kind by namespace/name, replaced (never mutated) on every change. */
export type Objects<T extends KubeObject> = ReadonlyMap<string, T>;

export function objectKey(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

export function fromList<T extends KubeObject>(items: readonly T[]): Objects<T> {
  return new Map(items.map((o) => [objectKey(o), o]));
}

/** The objects after one watch event; BOOKMARK and ERROR change nothing. */
export function applyWatchEvent<T extends KubeObject>(objects: Objects<T>, event: WatchEvent<T>): Objects<T> {
  if (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED') return objects;
  const next = new Map(objects);
  if (event.type === 'DELETED') next.delete(objectKey(event.object));
  else next.set(objectKey(event.object), event.object);
  return next;
}

/** The newest `limit` objects by `time` (ISO strings compare in time order); keeps a bounded map bounded. */
export function newest<T extends KubeObject>(objects: Objects<T>, time: (o: T) => string, limit: number): Objects<T> {
  if (objects.size <= limit) return objects;
  const kept = [...objects.values()].sort((a, b) => time(b).localeCompare(time(a))).slice(0, limit);
  return fromList(kept);
}
