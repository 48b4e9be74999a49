import { clockTime, duration } from '../model/format.js';
import type { ClusterInfo } from '../model/kube.js';
import type { DashboardState, Feed } from '../model/state.js';
import { setText } from './dom.js';

/** "Time ×10: a node turns Unknown 4 s after its last heartbeat; its pods are evicted 30 s after that." */
export function timeScaleText(info: ClusterInfo | undefined): string {
  if (!info) return 'Time scale: asking the cloud…';
  const speed = info.timeScale === 1 ? 'real time' : `${info.timeScale}× real time`;
  return `Time runs at ${speed}: a silent node turns Unknown after ${duration(Math.round(info.nodeMonitorGraceSeconds))}, and its pods (unless autonomous) are evicted ${duration(Math.round(info.defaultTolerationSeconds))} after that.`;
}

const feedNames: Record<Feed, string> = { nodes: 'nodes', pods: 'pods', events: 'events', deployments: 'deployments', components: 'components', edges: "edges' own views" };

/** "Live" or which feeds are retrying, since when and why. The edges feed is left to the edges section. */
export function feedsText(state: DashboardState): string {
  const down = (Object.entries(state.feeds) as [Feed, DashboardState['feeds'][Feed]][]).filter(([feed, s]) => feed !== 'edges' && s && !s.live);
  if (down.length === 0) return 'Live: the page follows the cloud as it changes.';
  return `Retrying: ${down.map(([feed, s]) => (s && !s.live ? `${feedNames[feed]} since ${clockTime(new Date(s.since).toISOString())} (${s.problem})` : '')).join('; ')}`;
}

export function updateHeader(els: { timeScale: HTMLElement; feeds: HTMLElement }, state: DashboardState): void {
  setText(els.timeScale, timeScaleText(state.info));
  setText(els.feeds, feedsText(state));
  els.feeds.classList.toggle('failed', feedsText(state).startsWith('Retrying'));
}
