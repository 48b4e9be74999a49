import { actions, type Runner } from '../actions.js';
import { componentRow, type ComponentRow } from '../model/component-rows.js';
import { timeAndAge } from '../model/format.js';
import type { ComponentState } from '../model/kube.js';
import { badge, h, setBadge, setText, syncChildren } from './dom.js';
import { controlButton } from './status-line.js';

const tones = { up: 'ok', down: 'bad', unhealthy: 'warn' } as const;

/** The cloud's components, up or down, each with Stop or Start when it can be stopped. */
export function componentsPanel(run: Runner): { el: HTMLElement; update(items: readonly ComponentState[], now: number): void } {
  const body = h('tbody');
  const el = h('table', { class: 'components' },
    h('caption', { class: 'visually-hidden' }, "The cloud's components"),
    h('thead', {}, h('tr', {}, ...['Component', 'State', 'Since', 'Action'].map((t) => h('th', { scope: 'col' }, t)))),
    body);
  return {
    el,
    update(items, now) {
      syncChildren(body, items.map(componentRow), (r) => r.name, (r) => rowElement(r, run), (tr, r) => updateRow(tr, r, now));
    },
  };
}

function rowElement(row: ComponentRow, run: Runner): HTMLElement {
  const name = h('th', { scope: 'row' }, row.name, row.parent ? h('span', { class: 'visually-hidden' }, ` (in ${row.parent})`) : '');
  const action = h('td');
  if (row.stoppable) {
    action.append(controlButton('', '', (b) => {
      const stop = b.dataset.running === 'true';
      run(`${stop ? 'Stop' : 'Start'} ${row.name}`, () => (stop ? actions.stopComponent(row.name) : actions.startComponent(row.name)), b);
    }));
  }
  return h('tr', { class: row.parent ? 'child' : undefined }, name, h('td', {}, badge('', 'neutral'), h('span', { class: 'message' })), h('td', { class: 'since' }), action);
}

function updateRow(tr: HTMLElement, row: ComponentRow, now: number): void {
  const [, state, since, action] = [...tr.children] as HTMLElement[];
  setBadge(state!.firstElementChild as HTMLElement, row.condition, tones[row.condition]);
  setText(state!.lastElementChild!, row.message ? ` ${row.message}` : '');
  setText(since!, timeAndAge(row.since, now));
  const button = action!.querySelector('button');
  if (button) {
    const verb = row.running ? 'Stop' : 'Start';
    button.dataset.running = String(row.running);
    setText(button, verb);
    button.setAttribute('aria-label', `${verb} ${row.name}`);
  }
}
