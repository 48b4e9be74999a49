import { clockTime } from '../model/format.js';
import type { KubeEvent } from '../model/kube.js';
import { timeline, type TimelineRow } from '../model/timeline.js';
import { h, setAttr, setText, syncChildren } from './dom.js';

/** How many events the timeline shows. */
export const TIMELINE_LENGTH = 50;

/** The newest events first: when, Normal or Warning (in words), on what, why. */
export function eventsPanel(): { el: HTMLElement; update(events: Iterable<KubeEvent>): void } {
  const list = h('ol', { class: 'timeline' });
  const note = h('p', { class: 'muted' }, 'No events yet.');
  return {
    el: h('div', {}, list, note),
    update(events) {
      const rows = timeline(events, TIMELINE_LENGTH);
      note.hidden = rows.length > 0;
      syncChildren(list, rows, (r) => r.key, rowElement, updateRow);
    },
  };
}

function rowElement(): HTMLElement {
  return h('li', {}, h('time'), ' ', h('span', { class: 'badge' }), ' ', h('span', { class: 'object' }), ' ', h('strong'), ' ', h('span', { class: 'message' }));
}

function updateRow(li: HTMLElement, row: TimelineRow): void {
  const [time, type, object, reason, message] = [...li.children] as HTMLElement[];
  setText(time!, row.time ? clockTime(row.time) : '');
  setAttr(time!, 'datetime', row.time || undefined);
  setText(type!, row.type);
  setAttr(type!, 'class', `badge ${row.type === 'Warning' ? 'warn' : 'neutral'}`);
  setText(object!, row.object);
  setText(reason!, row.reason);
  setText(message!, row.count > 1 ? `${row.message} (×${row.count})` : row.message);
}
