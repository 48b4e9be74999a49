import type { ClusterInfo, ComponentState, Deployment, EdgeSummary, EdgeView, KubeEvent, KubeObject, Lease, Node, Pod, WatchEvent } from './kube.js';
import { applyWatchEvent, fromList, newest, type Objects } from './objects.js';
import { eventTime } from './timeline.js';

/** The kinds the page lists and watches. */
export type Kind = 'nodes' | 'leases' | 'pods' | 'events' | 'deployments';
/** Where live data comes from: one watch per kind, and the polled components, edges and info. */
export type Feed = Kind | 'components' | 'edges';

/** How a feed is doing: live, or retrying since when and why (unreachable: the cloud did not answer at all). */
export type FeedStatus = { live: true } | { live: false; since: number; problem: string; unreachable?: boolean };

/** Events kept (the timeline shows fewer): older ones are dropped as new ones come. */
export const EVENTS_KEPT = 200;

export interface DashboardState {
  nodes: Objects<Node>;
  /** The nodes' Leases in kube-node-lease. */
  leases: Objects<Lease>;
  pods: Objects<Pod>;
  events: Objects<KubeEvent>;
  deployments: Objects<Deployment>;
  components: readonly ComponentState[];
  /** Undefined until the demo's control API first answers (or when no demo runs). */
  edges: readonly EdgeSummary[] | undefined;
  views: ReadonlyMap<string, EdgeView>;
  info: ClusterInfo | undefined;
  feeds: Partial<Record<Feed, FeedStatus>>;
  /** False once the API refused the session: the page then says how to log in again. */
  loggedIn: boolean;
  /** Since when (ms) the cloud has not answered at all; undefined while it answers. */
  cloudSilentSince: number | undefined;
}

export type Action =
  | { type: 'listed'; kind: Kind; items: KubeObject[] }
  | { type: 'watched'; kind: Kind; event: WatchEvent }
  | { type: 'components'; items: ComponentState[] }
  | { type: 'edges'; items: EdgeSummary[] }
  | { type: 'edge-view'; view: EdgeView }
  | { type: 'info'; info: ClusterInfo }
  | { type: 'feed'; feed: Feed; status: FeedStatus }
  | { type: 'logged-out' };

export const initialState: DashboardState = {
  nodes: new Map(),
  leases: new Map(),
  pods: new Map(),
  events: new Map(),
  deployments: new Map(),
  components: [],
  edges: undefined,
  views: new Map(),
  info: undefined,
  feeds: {},
  loggedIn: true,
  cloudSilentSince: undefined,
};

/** The state after one action: a pure function, so every change the page shows can be tested without a browser. */
export function reduce(state: DashboardState, action: Action): DashboardState {
  const next = apply(state, action);
  const silentSince = cloudSilentSince(state.cloudSilentSince, action);
  return next.cloudSilentSince === silentSince ? next : { ...next, cloudSilentSince: silentSince };
}

/**
 * The cloud is silent from the first request it left unanswered until it answers one again (a
 * 401 or 503 too). An event on a watch opened earlier proves nothing about new requests.
 */
function cloudSilentSince(before: number | undefined, action: Action): number | undefined {
  if (action.type === 'watched') return before;
  if (action.type !== 'feed' || action.status.live || !action.status.unreachable) return undefined;
  return before ?? action.status.since;
}

function apply(state: DashboardState, action: Action): DashboardState {
  switch (action.type) {
    case 'listed':
      return bounded({ ...state, [action.kind]: fromList(action.items) });
    case 'watched':
      return bounded({ ...state, [action.kind]: applyWatchEvent(state[action.kind] as Objects<KubeObject>, action.event) });
    case 'components':
      return { ...state, components: action.items };
    case 'edges': {
      const names = new Set(action.items.map((e) => e.name));
      const views = new Map([...state.views].filter(([name]) => names.has(name)));
      return { ...state, edges: action.items, views };
    }
    case 'edge-view':
      return { ...state, views: new Map(state.views).set(action.view.name, action.view) };
    case 'info':
      return { ...state, info: action.info };
    case 'feed': {
      const before = state.feeds[action.feed];
      // A feed that keeps failing has been down since its first failure.
      const status = !action.status.live && before && !before.live ? { ...action.status, since: before.since } : action.status;
      return { ...state, feeds: { ...state.feeds, [action.feed]: status } };
    }
    case 'logged-out':
      return { ...state, loggedIn: false };
  }
}

function bounded(state: DashboardState): DashboardState {
  return { ...state, events: newest(state.events, eventTime, EVENTS_KEPT) };
}

/** Every node name the page knows, from the cloud or from the demo, in order. */
export function nodeNames(state: DashboardState): string[] {
  const names = new Set<string>([...state.nodes.values()].map((n) => n.metadata.name ?? ''));
  for (const e of state.edges ?? []) names.add(e.name);
  names.delete('');
  return [...names].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
}
