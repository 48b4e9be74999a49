import { clockTime, duration, secondsSince } from './format.js';
import type { EdgeSummary, EdgeView } from './kube.js';
import { byNamespaceAndName, podRow, type PodRow } from './pod-rows.js';

export type EdgeConnection = 'connected' | 'offline' | 'down' | 'unknown';

/** What an edge says itself, ready to show: connected or offline since when, its pods. */
export interface EdgeOwnView {
  name: string;
  connection: EdgeConnection;
  /** One line: "connected", "offline since 12:03:04 (for 15 s)", "edge process down: …". */
  summary: string;
  queued?: number;
  link: EdgeSummary['link'] | 'unknown';
  process: EdgeSummary['process'] | 'unknown';
  /** Null when the edge cannot say (process down, or no answer yet). */
  pods: PodRow[] | null;
}

export function edgeOwnView(name: string, summary: EdgeSummary | undefined, view: EdgeView | undefined, now: number): EdgeOwnView {
  const base = { name, link: summary?.link ?? 'unknown', process: view?.process ?? summary?.process ?? 'unknown' } as const;
  if (!view) return { ...base, connection: 'unknown', summary: 'no answer from the edge yet', pods: null };
  if (!view.connection) return { ...base, connection: view.process === 'running' ? 'unknown' : 'down', summary: view.message ?? 'the edge did not say', pods: null };
  const c = view.connection;
  const pods = (view.pods ?? []).map(podRow).sort(byNamespaceAndName);
  if (c.connected) return { ...base, connection: 'connected', summary: 'connected to the cloud', queued: c.queued, pods };
  const since = c.offlineSince ? ` since ${clockTime(c.offlineSince)} (for ${duration(secondsSince(c.offlineSince, now) ?? 0)})` : '';
  return { ...base, connection: 'offline', summary: `offline${since}`, queued: c.queued, pods };
}
