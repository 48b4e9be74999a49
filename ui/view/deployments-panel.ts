import { actions, type Runner } from '../actions.js';
import type { Deployment } from '../model/kube.js';
import { objectKey } from '../model/objects.js';
import { h, setText, syncChildren } from './dom.js';
import { controlButton } from './status-line.js';

/** Each Deployment's replicas (ready of wanted), with a number field and a Scale button. */
export function deploymentsPanel(run: Runner): { el: HTMLElement; update(items: Iterable<Deployment>): void } {
  const list = h('ul', { class: 'deployments' });
  const note = h('p', { class: 'muted' }, 'No Deployments. Try: kubectl apply -f examples/deployment.yaml');
  return {
    el: h('div', {}, list, note),
    update(items) {
      const sorted = [...items].sort((a, b) => objectKey(a).localeCompare(objectKey(b)));
      note.hidden = sorted.length > 0;
      syncChildren(list, sorted, objectKey, (d) => itemElement(d, run), updateItem);
    },
  };
}

function itemElement(d: Deployment, run: Runner): HTMLElement {
  const namespace = d.metadata.namespace ?? 'default';
  const name = d.metadata.name ?? '';
  const label = namespace === 'default' ? name : `${namespace}/${name}`;
  const inputId = `replicas-${namespace}-${name}`;
  const input = h('input', { id: inputId, type: 'number', min: '0', max: '100', step: '1', inputmode: 'numeric' });
  const scale = (button?: HTMLButtonElement): void => {
    const replicas = Number(input.value);
    if (!Number.isInteger(replicas) || replicas < 0 || replicas > 100) return run(`Scale ${label}`, () => Promise.reject(new Error('replicas must be a whole number from 0 to 100')), button);
    run(`Scale ${label} to ${replicas}`, () => actions.scaleDeployment(namespace, name, replicas), button);
  };
  const button = controlButton('Scale', `Scale ${label}`, scale, 'primary');
  const form = h('form', { class: 'scale' }, h('label', { for: inputId }, `Replicas of ${label}`), input, button);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    scale(button);
  });
  return h('li', {}, h('span', { class: 'name' }, label), h('span', { class: 'replicas' }), form);
}

function updateItem(li: HTMLElement, d: Deployment): void {
  const wanted = d.spec?.replicas ?? 0;
  setText(li.querySelector('.replicas')!, `${d.status?.readyReplicas ?? 0} of ${wanted} ready`);
  const input = li.querySelector('input')!;
  // Leave the field alone while someone types in it.
  if (document.activeElement !== input && input.dataset.wanted !== String(wanted)) {
    input.value = String(wanted);
    input.dataset.wanted = String(wanted);
  }
}
