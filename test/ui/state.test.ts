import { describe, expect, it } from 'vitest';
import { feedsText } from '../../ui/model/feeds.js';
import { clockTime } from '../../ui/model/format.js';
import type { KubeEvent, Node, Pod } from '../../ui/model/kube.js';
import { EVENTS_KEPT, initialState, nodeNames, reduce, type Action, type DashboardState } from '../../ui/model/state.js';

const pod = (name: string, rv: string, phase = 'Pending'): Pod => ({ metadata: { name, namespace: 'default', resourceVersion: rv }, status: { phase } });
const node = (name: string): Node => ({ metadata: { name } });
const run = (...actions: Action[]): DashboardState => actions.reduce(reduce, initialState);

describe('the dashboard state, updated from lists and watch events', () => {
  it('replaces a kind on a list, then follows ADDED, MODIFIED and DELETED; BOOKMARK and ERROR change nothing', () => {
    const state = run(
      { type: 'listed', kind: 'pods', items: [pod('a', '1'), pod('b', '2')] },
      { type: 'watched', kind: 'pods', event: { type: 'MODIFIED', object: pod('a', '3', 'Running') } },
      { type: 'watched', kind: 'pods', event: { type: 'DELETED', object: pod('b', '4') } },
      { type: 'watched', kind: 'pods', event: { type: 'ADDED', object: pod('c', '5') } },
      { type: 'watched', kind: 'pods', event: { type: 'BOOKMARK', object: { metadata: { resourceVersion: '6' } } } },
    );
    expect([...state.pods.values()].map((p) => [p.metadata.name, p.status?.phase])).toEqual([['a', 'Running'], ['c', 'Pending']]);
    const relisted = reduce(state, { type: 'listed', kind: 'pods', items: [pod('z', '9')] });
    expect([...relisted.pods.keys()]).toEqual(['default/z']);
  });

  it('never changes the state it was given', () => {
    const before = run({ type: 'listed', kind: 'nodes', items: [node('edge-1')] });
    const after = reduce(before, { type: 'watched', kind: 'nodes', event: { type: 'ADDED', object: node('edge-2') } });
    expect(before.nodes.size).toBe(1);
    expect(after.nodes.size).toBe(2);
  });

  it(`keeps only the newest ${EVENTS_KEPT} events`, () => {
    const event = (i: number): KubeEvent => ({ metadata: { name: `e${i}`, namespace: 'default' }, lastTimestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString() });
    let state = run({ type: 'listed', kind: 'events', items: Array.from({ length: EVENTS_KEPT }, (_, i) => event(i)) });
    state = reduce(state, { type: 'watched', kind: 'events', event: { type: 'ADDED', object: event(EVENTS_KEPT) } });
    expect(state.events.size).toBe(EVENTS_KEPT);
    expect(state.events.has('default/e0')).toBe(false);
    expect(state.events.has(`default/e${EVENTS_KEPT}`)).toBe(true);
  });

  it('keeps the first failure time of a feed that keeps failing, and clears it once live', () => {
    const state = run(
      { type: 'feed', feed: 'pods', status: { live: false, since: 100, problem: 'store down' } },
      { type: 'feed', feed: 'pods', status: { live: false, since: 200, problem: 'store still down' } },
    );
    expect(state.feeds.pods).toEqual({ live: false, since: 100, problem: 'store still down' });
    expect(reduce(state, { type: 'feed', feed: 'pods', status: { live: true } }).feeds.pods).toEqual({ live: true });
  });

  it("keeps an edge's own view until the demo no longer lists that edge", () => {
    const view = { name: 'edge-2', process: 'running' as const, connection: { connected: true, offlineSince: null, queued: 0, lastHeardFromBroker: null, silentForSeconds: null, keepaliveSeconds: 60 }, pods: [] };
    const summary = (name: string) => ({ name, process: 'running' as const, localApiUrl: '', link: 'up' as const });
    let state = run({ type: 'edges', items: [summary('edge-1'), summary('edge-2')] }, { type: 'edge-view', view });
    expect(state.views.get('edge-2')).toEqual(view);
    state = reduce(state, { type: 'edges', items: [summary('edge-1')] });
    expect(state.views.has('edge-2')).toBe(false);
  });

  it('names every node the cloud or the demo knows, in natural order', () => {
    const state = run(
      { type: 'listed', kind: 'nodes', items: [node('edge-10'), node('edge-2')] },
      { type: 'edges', items: [{ name: 'edge-1', process: 'running', localApiUrl: '', link: 'up' }, { name: 'edge-2', process: 'running', localApiUrl: '', link: 'cut' }] },
    );
    expect(nodeNames(state)).toEqual(['edge-1', 'edge-2', 'edge-10']);
  });

  it('marks the cloud silent from its first unanswered request until it answers anything again', () => {
    const silent = run(
      { type: 'listed', kind: 'nodes', items: [node('edge-1')] },
      { type: 'feed', feed: 'pods', status: { live: false, since: 100, problem: 'the cloud does not answer (Failed to fetch)', unreachable: true } },
      { type: 'feed', feed: 'components', status: { live: false, since: 300, problem: 'the cloud does not answer (Failed to fetch)', unreachable: true } },
    );
    expect(silent.cloudSilentSince).toBe(100);
    expect(silent.nodes.size).toBe(1);
    expect(reduce(silent, { type: 'watched', kind: 'nodes', event: { type: 'MODIFIED', object: node('edge-1') } }).cloudSilentSince).toBe(100);
    const time = (ms: number): string => clockTime(new Date(ms).toISOString());
    expect(feedsText(silent)).toBe(`Cloud unreachable since ${time(100)} — showing what it last said.`);
    expect(reduce(silent, { type: 'components', items: [] }).cloudSilentSince).toBeUndefined();
    expect(reduce(silent, { type: 'feed', feed: 'pods', status: { live: true } }).cloudSilentSince).toBeUndefined();
    // A store that is down answers 503: the cloud answers, so the page stays live and says what retries.
    const storeDown = reduce(silent, { type: 'feed', feed: 'pods', status: { live: false, since: 400, problem: 'the store is stopped' } });
    expect(storeDown.cloudSilentSince).toBeUndefined();
    expect(feedsText(storeDown)).toBe(`Retrying: pods since ${time(400)} (the store is stopped); components since ${time(300)} (the cloud does not answer (Failed to fetch))`);
  });

  it('remembers a refused session', () => {
    expect(run({ type: 'logged-out' }).loggedIn).toBe(false);
  });
});
