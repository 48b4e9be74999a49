import { clockTime } from './format.js';
import type { DashboardState, Feed } from './state.js';

const feedNames: Record<Feed, string> = { nodes: 'nodes', leases: 'node leases', pods: 'pods', events: 'events', deployments: 'deployments', components: 'components', edges: "edges' own views" };

const at = (ms: number): string => clockTime(new Date(ms).toISOString());

/** "Live", the cloud not answering since when, or which feeds are retrying, since when and why. The edges feed is left to the edges section. */
export function feedsText(state: DashboardState): string {
  if (state.cloudSilentSince !== undefined) return `Cloud unreachable since ${at(state.cloudSilentSince)} — showing what it last said.`;
  const down = (Object.entries(state.feeds) as [Feed, DashboardState['feeds'][Feed]][]).filter(([feed, s]) => feed !== 'edges' && s && !s.live);
  if (down.length === 0) return 'Live: the page follows the cloud as it changes.';
  return `Retrying: ${down.map(([feed, s]) => (s && !s.live ? `${feedNames[feed]} since ${at(s.since)} (${s.problem})` : '')).join('; ')}`;
}
