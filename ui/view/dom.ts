type Attrs = Record<string, string | boolean | undefined>;
type Child = Node | string;

/** An element with attributes (true: present, false/undefined: absent) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === true) el.setAttribute(name, '');
    else if (typeof value === 'string') el.setAttribute(name, value);
  }
  el.append(...children);
  return el;
}

/** Sets text and attributes only when they differ, so that unchanged parts of the page stay as they are. */
export function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

export function setAttr(el: Element, name: string, value: string | undefined): void {
  if (value === undefined) el.removeAttribute(name);
  else if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

/**
 * Makes `parent`'s children one element per item, in order, reusing the element of each key:
 * an element that stays (a focused button, say) is updated in place, never rebuilt.
 */
export function syncChildren<T>(parent: Element, items: readonly T[], key: (item: T) => string, create: (item: T) => HTMLElement, update: (el: HTMLElement, item: T) => void): void {
  const existing = new Map<string, HTMLElement>();
  for (const child of [...parent.children]) {
    const k = (child as HTMLElement).dataset.key;
    if (k !== undefined) existing.set(k, child as HTMLElement);
    else child.remove();
  }
  let at: Element | null = parent.firstElementChild;
  for (const item of items) {
    const k = key(item);
    let el = existing.get(k);
    existing.delete(k);
    if (!el) {
      el = create(item);
      el.dataset.key = k;
    }
    update(el, item);
    if (el !== at) parent.insertBefore(el, at);
    else at = at.nextElementSibling;
  }
  for (const el of existing.values()) el.remove();
}

/** A status conveyed by text, with a class for its colour: "Ready", "Unknown", "cut", … */
export function badge(text: string, tone: 'ok' | 'warn' | 'bad' | 'neutral'): HTMLElement {
  return h('span', { class: `badge ${tone}` }, text);
}

export function setBadge(el: HTMLElement, text: string, tone: 'ok' | 'warn' | 'bad' | 'neutral'): void {
  setText(el, text);
  setAttr(el, 'class', `badge ${tone}`);
}
