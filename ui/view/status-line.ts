import type { Timers } from '../clock.js';
import type { Runner } from '../actions.js';
import { clockTime } from '../model/format.js';
import { setText } from './dom.js';

/** The polite live region under the header: the last control's outcome ("Cut link of edge-2: done"). */
export function statusRunner(region: HTMLElement, timers: Timers): Runner {
  return (label, work, button) => {
    const at = (): string => clockTime(new Date(timers.now()).toISOString());
    region.classList.remove('failed');
    setText(region, `${at()} ${label}: working…`);
    button?.setAttribute('aria-busy', 'true');
    work()
      .then(
        () => setText(region, `${at()} ${label}: done`),
        (err: Error) => {
          region.classList.add('failed');
          setText(region, `${at()} ${label}: failed: ${err.message}`);
        },
      )
      .finally(() => button?.removeAttribute('aria-busy'));
  };
}

/** A real button with a visible label and an accessible name that says what it acts on. */
export function controlButton(text: string, accessibleName: string, onClick: (button: HTMLButtonElement) => void, tone: 'primary' | 'danger' | 'plain' = 'plain'): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = `control ${tone}`;
  button.textContent = text;
  button.setAttribute('aria-label', accessibleName);
  button.addEventListener('click', () => onClick(button));
  return button;
}
