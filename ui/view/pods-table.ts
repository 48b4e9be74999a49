import type { Runner } from '../actions.js';
import { actions } from '../actions.js';
import type { PodRow } from '../model/pod-rows.js';
import { h, setAttr, setText, syncChildren } from './dom.js';
import { controlButton } from './status-line.js';

/** A table of pods (name, ready, status, restarts: kubectl get pods' columns), with a Delete button per pod when `run` is given. */
export function podsTable(caption: string, run?: Runner): { el: HTMLElement; update(rows: readonly PodRow[] | null, empty: string): void } {
  const body = h('tbody');
  const heads = ['Pod', 'Ready', 'Status', 'Restarts', ...(run ? ['Action'] : [])].map((t) => h('th', { scope: 'col' }, t));
  const table = h('table', { class: 'pods' }, h('caption', { class: 'visually-hidden' }, caption), h('thead', {}, h('tr', {}, ...heads)), body);
  const note = h('p', { class: 'muted' });
  const el = h('div', {}, table, note);
  return {
    el,
    update(rows, empty) {
      table.hidden = !rows || rows.length === 0;
      note.hidden = !table.hidden;
      setText(note, empty);
      syncChildren(body, rows ?? [], (r) => r.key, (r) => podRowElement(r, run), updatePodRow);
    },
  };
}

function podRowElement(row: PodRow, run: Runner | undefined): HTMLElement {
  const tr = h('tr', {}, h('th', { scope: 'row', class: 'name' }), h('td', { class: 'ready' }), h('td', { class: 'status' }), h('td', { class: 'restarts' }));
  if (run) {
    const label = `Delete pod ${row.namespace}/${row.name}`;
    tr.append(h('td', {}, controlButton('Delete', label, (b) => run(label, () => actions.deletePod(row.namespace, row.name), b), 'danger')));
  }
  return tr;
}

function updatePodRow(tr: HTMLElement, row: PodRow): void {
  const [name, ready, status, restarts] = [...tr.children] as HTMLElement[];
  setText(name!, row.namespace === 'default' ? row.name : `${row.namespace}/${row.name}`);
  setAttr(name!, 'title', row.mounts ? `mounts:\n${row.mounts.join('\n')}` : undefined);
  setText(ready!, row.ready);
  setText(status!, row.status);
  setText(restarts!, String(row.restarts));
  setAttr(tr, 'data-phase', row.phase);
}
