import { actions, type Runner } from '../actions.js';
import type { EdgeOwnView } from '../model/edge-view.js';
import { timeAndAge } from '../model/format.js';
import type { CloudNodeView, Readiness } from '../model/node-view.js';
import type { PodRow } from '../model/pod-rows.js';
import { badge, h, setAttr, setBadge, setText } from './dom.js';
import { podsTable } from './pods-table.js';
import { controlButton } from './status-line.js';

const readinessTone = { Ready: 'ok', Unknown: 'warn', NotReady: 'bad' } as const;
const connectionTone = { connected: 'ok', offline: 'warn', down: 'bad', unknown: 'neutral' } as const;

export interface NodeCardData {
  cloud: CloudNodeView | undefined;
  cloudPods: readonly PodRow[];
  /** What the taint manager will do to the node's pods ("pods evicted in 4:12"), when the node has NoExecute taints. */
  eviction: string | undefined;
  edge: EdgeOwnView;
  /** False without a demo: then nothing can cut links or restart edges. */
  controllable: boolean;
  now: number;
}

export interface NodeCard {
  el: HTMLElement;
  update(data: NodeCardData): void;
}

/** One edge node twice, side by side: what the cloud believes, and what the edge itself says. */
export function nodeCard(node: string, run: Runner): NodeCard {
  const headingId = `node-${node}`;
  const cloud = cloudSide(node, run);
  const edge = edgeSide(node);
  const buttons = nodeControls(node, run);
  const controls = h('div', { class: 'controls', role: 'group', 'aria-label': `Controls of ${node}` }, ...buttons.all);
  const el = h('section', { class: 'node', 'data-node': node, 'aria-labelledby': headingId },
    h('h3', { id: headingId }, node),
    h('div', { class: 'views' }, cloud.el, edge.el),
    controls);
  return {
    el,
    update(data) {
      cloud.update(data);
      edge.update(data);
      controls.hidden = !data.controllable;
      offerCable(buttons, data.edge.link);
    },
  };
}

function nodeControls(node: string, run: Runner): { cut: HTMLButtonElement; heal: HTMLButtonElement; all: HTMLButtonElement[] } {
  const control = (text: string, label: string, work: () => Promise<unknown>, tone: 'primary' | 'danger' | 'plain' = 'plain'): HTMLButtonElement =>
    controlButton(text, label, (b) => run(label, work, b), tone);
  const cut = control('Cut link', `Cut link of ${node}`, () => actions.cutLink(node), 'danger');
  const heal = control('Heal link', `Heal link of ${node}`, () => actions.healLink(node), 'primary');
  return {
    cut,
    heal,
    all: [
      cut,
      heal,
      control('Restart edge process', `Restart edge process of ${node}`, () => actions.restartEdge(node)),
      control('Crash (kill -9)', `Crash edge process of ${node} (kill -9)`, () => actions.crashEdge(node), 'danger'),
      control('Reboot node', `Reboot node ${node}`, () => actions.rebootNode(node)),
    ],
  };
}

/**
 * Only the cable's other state is offered: a cut link can be healed, any other one cut (both
 * while the state is unknown). Focus on a button being disabled moves to the other one.
 */
function offerCable({ cut, heal }: { cut: HTMLButtonElement; heal: HTMLButtonElement }, link: EdgeOwnView['link']): void {
  const moot = link === 'cut' ? cut : link === 'unknown' ? undefined : heal;
  const offered = moot === cut ? heal : cut;
  offered.disabled = false;
  if (moot === undefined) heal.disabled = false;
  else if (!moot.disabled) {
    const hadFocus = document.activeElement === moot;
    moot.disabled = true;
    if (hadFocus) offered.focus();
  }
}

function cloudSide(node: string, run: Runner): { el: HTMLElement; update(d: NodeCardData): void } {
  const readiness = badge('', 'neutral');
  readiness.classList.add('readiness');
  const reason = h('span', { class: 'muted' });
  const heartbeat = h('dd');
  const taints = h('dd');
  const evictionTerm = h('dt', {}, 'Eviction');
  const eviction = h('dd', { class: 'eviction' });
  const pods = podsTable(`Pods the cloud placed on ${node}`, run);
  const el = h('div', { class: 'cloud-view' },
    h('h4', {}, "Cloud's view"),
    h('dl', {}, h('dt', {}, 'Node'), h('dd', {}, readiness, ' ', reason), h('dt', {}, 'Last heartbeat'), heartbeat, h('dt', {}, 'Taints'), taints, evictionTerm, eviction),
    pods.el);
  return {
    el,
    update({ cloud, cloudPods, eviction: outlook, now }) {
      const state: Readiness | 'not registered' = cloud?.readiness ?? 'not registered';
      setBadge(readiness, state, cloud ? readinessTone[cloud.readiness] : 'neutral');
      readiness.classList.add('readiness');
      setAttr(el, 'data-readiness', cloud?.readiness);
      setText(reason, cloud && cloud.readiness !== 'Ready' ? cloud.reason : '');
      setText(heartbeat, cloud?.lastHeartbeat ? timeAndAge(cloud.lastHeartbeat, now) : 'none');
      setText(taints, cloud && cloud.taints.length > 0 ? cloud.taints.join(', ') : 'none');
      evictionTerm.hidden = eviction.hidden = outlook === undefined;
      setText(eviction, outlook ?? '');
      pods.update(cloudPods, 'No pods placed here.');
    },
  };
}

function edgeSide(node: string): { el: HTMLElement; update(d: NodeCardData): void } {
  const connection = badge('', 'neutral');
  const summary = h('span', { class: 'muted' });
  const link = h('dd');
  const queued = h('dd');
  const pods = podsTable(`Pods ${node} runs, as it says itself`);
  const el = h('div', { class: 'edge-view' },
    h('h4', {}, "Edge's own view"),
    h('dl', {}, h('dt', {}, 'Cloud link'), h('dd', {}, connection, ' ', summary), h('dt', {}, 'Cable · process'), link, h('dt', {}, 'Queued updates'), queued),
    pods.el);
  return {
    el,
    update({ edge, controllable }) {
      setBadge(connection, edge.connection, connectionTone[edge.connection]);
      setAttr(el, 'data-connection', edge.connection);
      setText(summary, edge.connection === 'connected' ? '' : edge.summary);
      setText(link, controllable ? `cable ${edge.link} · process ${edge.process}` : 'no demo running: unknown');
      setText(queued, edge.queued === undefined ? '–' : String(edge.queued));
      pods.update(edge.pods, edge.pods ? 'It runs no pods.' : controllable ? 'Unknown while the edge does not answer.' : 'Only a demo shows what edges say.');
    },
  };
}
