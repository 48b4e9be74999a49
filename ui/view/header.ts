import { feedsText } from '../model/feeds.js';
import { duration } from '../model/format.js';
import type { ClusterInfo } from '../model/kube.js';
import type { DashboardState } from '../model/state.js';
import { setAttr, setText } from './dom.js';

/** "Time ×10: a node turns Unknown 4 s after its last heartbeat; its pods are evicted 30 s after that." */
export function timeScaleText(info: ClusterInfo | undefined): string {
  if (!info) return 'Time scale: asking the cloud…';
  const speed = info.timeScale === 1 ? 'real time' : `${info.timeScale}× real time`;
  return `Time runs at ${speed}: a silent node turns Unknown after ${duration(Math.round(info.nodeMonitorGraceSeconds))}, and its pods (unless autonomous) are evicted ${duration(Math.round(info.defaultTolerationSeconds))} after that.`;
}

export function updateHeader(els: { timeScale: HTMLElement; feeds: HTMLElement }, state: DashboardState): void {
  setText(els.timeScale, timeScaleText(state.info));
  const feeds = feedsText(state);
  setText(els.feeds, feeds);
  els.feeds.classList.toggle('failed', !feeds.startsWith('Live'));
}

/**
 * While the cloud does not answer, the page shows the past: greyed, with every control in it
 * disabled (a disabled fieldset), until the cloud answers again. Without a session nothing
 * can be done either.
 */
export function freezeWhileSilent(page: HTMLFieldSetElement, state: DashboardState): void {
  const silent = state.cloudSilentSince !== undefined;
  page.disabled = silent || !state.loggedIn;
  page.classList.toggle('stale', silent);
  setAttr(page, 'aria-describedby', silent ? 'feeds' : undefined);
}

/** Keeps --top-height the sticky header's height: panels sized to the viewport stay clear of it. */
export function trackHeaderHeight(header: HTMLElement): void {
  const set = (): void => document.documentElement.style.setProperty('--top-height', `${header.offsetHeight}px`);
  new ResizeObserver(set).observe(header);
  set();
}
