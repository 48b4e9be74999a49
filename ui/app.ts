import { browserTimers, type Timers } from './clock.js';
import { ApiError, call } from './live/api.js';
import { oneAtATime } from './live/one-at-a-time.js';
import { poll } from './live/poll.js';
import { adoptSession, forgetSession } from './live/session.js';
import { listWatch } from './live/watch.js';
import { edgeOwnView } from './model/edge-view.js';
import { evictionOutlook } from './model/eviction.js';
import type { ClusterInfo, ComponentState, EdgeSummary, EdgeView } from './model/kube.js';
import { cloudNodeView } from './model/node-view.js';
import { objectKey } from './model/objects.js';
import { podsOn } from './model/pod-rows.js';
import { initialState, nodeNames, reduce, type Action, type DashboardState, type Feed, type Kind } from './model/state.js';
import { componentsPanel } from './view/components-panel.js';
import { deploymentsPanel } from './view/deployments-panel.js';
import { setText, syncChildren } from './view/dom.js';
import { eventsPanel } from './view/events-panel.js';
import { freezeWhileSilent, trackHeaderHeight, updateHeader } from './view/header.js';
import { nodeCard, type NodeCard } from './view/node-card.js';
import { podsTable } from './view/pods-table.js';
import { statusRunner } from './view/status-line.js';

/** Where each node's Lease is (the node's name is the Lease's). */
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

const watched: [Kind, string][] = [
  ['nodes', '/api/v1/nodes'],
  ['leases', `/apis/coordination.k8s.io/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases`],
  ['pods', '/api/v1/pods'],
  ['events', '/api/v1/events'],
  ['deployments', '/apis/apps/v1/deployments'],
];

function byId(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el;
}

/** Everything that feeds the state: watches for the API's objects, polls (1 s or slower, one request at a time) for the rest. */
function startFeeds(dispatch: (a: Action) => void, timers: Timers, signal: AbortSignal): Promise<unknown>[] {
  const polled = oneAtATime();
  const problem = (feed: Feed) => (p: string, unreachable: boolean) => dispatch({ type: 'feed', feed, status: { live: false, since: timers.now(), problem: p, unreachable } });
  const live = (feed: Feed) => () => dispatch({ type: 'feed', feed, status: { live: true } });
  const feeds: Promise<unknown>[] = watched.map(([kind, path]) =>
    listWatch({
      path, timers, signal,
      onList: (items) => dispatch({ type: 'listed', kind, items }),
      onEvent: (event) => dispatch({ type: 'watched', kind, event }),
      onLive: live(kind),
      onProblem: problem(kind),
    }),
  );
  feeds.push(
    poll({
      everyMs: 2_000, timers, signal, onProblem: problem('components'),
      fetch: (s) => polled(() => call<{ items: ComponentState[] }>('GET', '/kedge/v1/components', { signal: s })),
      onValue: (list) => {
        dispatch({ type: 'components', items: list.items });
        live('components')();
      },
    }),
    poll({ everyMs: 30_000, timers, signal, onProblem: () => {}, fetch: (s) => polled(() => call<ClusterInfo>('GET', '/kedge/v1/info', { signal: s })), onValue: (info) => dispatch({ type: 'info', info }) }),
    poll({
      everyMs: 1_000, timers, signal, onProblem: problem('edges'),
      fetch: (s) =>
        polled(async () => {
          const edges = (await call<{ items: EdgeSummary[] }>('GET', '/kedge/v1/demo/edges', { signal: s })).items;
          const views: EdgeView[] = [];
          for (const e of edges) views.push(await call<EdgeView>('GET', `/kedge/v1/demo/edges/${encodeURIComponent(e.name)}/view`, { signal: s }));
          return { edges, views };
        }),
      onValue: ({ edges, views }) => {
        dispatch({ type: 'edges', items: edges });
        for (const view of views) dispatch({ type: 'edge-view', view });
        live('edges')();
      },
    }),
  );
  return feeds;
}

function main(): void {
  adoptSession();
  const timers = browserTimers;
  const abort = new AbortController();
  const run = statusRunner(byId('status'), timers);
  const components = componentsPanel(run);
  const deployments = deploymentsPanel(run);
  const events = eventsPanel();
  const unplaced = podsTable('Pods not placed on any node', run);
  const cards = new Map<string, NodeCard>();
  byId('components').append(components.el);
  byId('deployments').append(deployments.el);
  byId('events').append(events.el);
  byId('unplaced').append(unplaced.el);
  trackHeaderHeight(byId('top'));

  let state: DashboardState = initialState;
  let pending = false;
  const render = (): void => {
    pending = false;
    const now = timers.now();
    updateHeader({ timeScale: byId('time-scale'), feeds: byId('feeds') }, state);
    freezeWhileSilent(byId('page') as HTMLFieldSetElement, state);
    byId('logged-out').hidden = state.loggedIn;
    components.update(state.components, now);
    const edges = state.edges;
    const edgesProblem = state.feeds.edges;
    setText(byId('edges-note'), edgesProblem && !edgesProblem.live && !edgesProblem.unreachable ? `The edges' own views and their controls need a running demo: ${edgesProblem.problem}` : '');
    syncChildren(byId('nodes'), nodeNames(state), (n) => n, (n) => {
      const card = nodeCard(n, run);
      cards.set(n, card);
      return card.el;
    }, (_el, n) => {
      const node = state.nodes.get(objectKey({ metadata: { name: n } }));
      cards.get(n)!.update({
        cloud: node && cloudNodeView(node, now, state.leases.get(objectKey({ metadata: { namespace: NODE_LEASE_NAMESPACE, name: n } }))),
        cloudPods: podsOn(state.pods.values(), n),
        // A silent cloud evicts nothing: its countdown stops where it was.
        eviction: node && state.info && evictionOutlook(node, state.pods.values(), state.info.timeScale, state.cloudSilentSince ?? now),
        edge: edgeOwnView(n, edges?.find((e) => e.name === n), state.views.get(n), now),
        controllable: edges?.some((e) => e.name === n) ?? false,
        now,
      });
    });
    const waiting = podsOn(state.pods.values(), undefined);
    byId('unplaced-section').hidden = waiting.length === 0;
    unplaced.update(waiting, '');
    deployments.update(state.deployments.values());
    events.update(state.events.values());
  };
  const schedule = (): void => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(render);
  };
  const dispatch = (action: Action): void => {
    state = reduce(state, action);
    schedule();
  };
  // Ages ("5 s ago") move on even when nothing else does.
  timers.every(1_000, schedule, abort.signal);
  for (const feed of startFeeds(dispatch, timers, abort.signal)) {
    feed.catch((err: unknown) => {
      if (!(err instanceof ApiError && err.status === 401)) throw err;
      abort.abort();
      forgetSession();
      dispatch({ type: 'logged-out' });
    });
  }
}

main();
