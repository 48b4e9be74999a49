import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../cloud/client/client.js';
import { readCredentials } from '../../cloud/apiserver/auth/credentials.js';
import { createRemoteClient } from '../../cloud/apiserver/http/remote-handler.js';
import { realClock, wallDelay } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { KubeObject, Pod } from '../../shared/types.js';
import { startDemo, type Demo } from '../../sim/demo.js';

/** Debian's Chromium, driven by playwright-core (which ships no browser of its own). */
const CHROMIUM = process.env.KEDGE_CHROMIUM ?? '/usr/bin/chromium';
/** Set to 1 to refresh the README's screenshot (docs/img/dashboard.png) from this run. */
const WRITE_README_IMAGE = process.env.KEDGE_WRITE_README_IMAGE === '1';
const README_IMAGE = resolve(import.meta.dirname, '../../docs/img/dashboard.png');

const pinned = (name: string, node: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels: { app: name } },
  spec: { nodeName: node, containers: [{ name: 'main', image: 'kedge.io/app:1' }] },
});

const web = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'kedge.io/hello:1.0' }] } },
  },
};

const card = (node: string): string => `section.node[data-node="${node}"]`;

/** Polls `check` until it holds: real processes on a busy machine, so a generous deadline. */
async function until(check: () => Promise<boolean>, what = 'a condition', timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await wallDelay(200);
  }
}

/**
 * The issue's acceptance: `kedge demo`'s login link in a real browser, three Ready nodes, a
 * cable pulled from the page (the cloud's view turns Unknown while the edge still runs its
 * pods), and healed again.
 */
describe('the dashboard in Chromium', () => {
  let dir: string;
  let shots: string;
  let demo: Demo;
  let api: ApiClient;
  let browser: Browser;
  let page: Page;
  const shoot = async (name: string): Promise<string> => {
    const path = join(shots, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    return path;
  };

  /**
   * Once the cloud marked the pod not Ready (its node unreachable) and the page has seen that,
   * its row says what kubectl get pods says: READY 1/1, STATUS Running, and nothing else.
   */
  const expectReadinessAsKubectlPrintsIt = async (name: string): Promise<void> => {
    await until(async () => {
      const pod = await api.get<Pod>({ resource: 'pods', namespace: 'default', name });
      return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'False') === true;
    }, `the cloud to mark ${name} not Ready`);
    // One pods watch carries every pod in order: once a later pod shows, the page has the mark.
    const marker = { ...pinned('after-the-mark', 'edge-1'), spec: { nodeSelector: { 'kedge.io/nowhere': 'true' }, containers: [{ name: 'main', image: 'kedge.io/app:1' }] } };
    await api.create({ resource: 'pods', namespace: 'default', name: marker.metadata.name }, marker);
    await page.locator('#unplaced', { hasText: 'after-the-mark' }).waitFor({ timeout: 10_000 });
    const row = page.locator(`${card('edge-2')} .cloud-view tr`, { has: page.locator('th', { hasText: new RegExp(`^${name}$`) }) });
    expect(await row.locator('td.ready').textContent()).toBe('1/1');
    expect(await row.locator('td.status').textContent()).toBe('Running');
    expect(await row.textContent()).not.toMatch(/not ready/i);
    await api.delete({ resource: 'pods', namespace: 'default', name: marker.metadata.name });
  };

  /** Greyed, every control disabled, and since when the cloud has not answered (a time between `from` and now). */
  const expectFrozen = async (from: number): Promise<void> => {
    const feeds = page.locator('#feeds', { hasText: /^Cloud unreachable since \d\d:\d\d:\d\d — showing what it last said\.$/ });
    await feeds.waitFor({ timeout: 20_000 });
    const since = /since (\S+)/.exec((await feeds.textContent()) ?? '')![1];
    const seconds = await page.evaluate((start) => {
      const times: string[] = [];
      for (let t = Math.floor(start / 1000) * 1000; t <= performance.timeOrigin + performance.now(); t += 1000) times.push(new Date(t).toTimeString().slice(0, 8));
      return times;
    }, from);
    expect(seconds).toContain(since);
    const controls: boolean[] = await page.locator('main').evaluate((main) => [...main.querySelectorAll('button, input')].map((el) => el.matches(':disabled')));
    expect(controls.length).toBeGreaterThan(10);
    expect(controls.every(Boolean)).toBe(true);
    expect(await page.locator('#page').evaluate((el) => el.classList.contains('stale') && el.ownerDocument.defaultView.getComputedStyle(el).filter.includes('grayscale'))).toBe(true);
    // What it last said stays on the page.
    // The three edges and the cloud's own control-plane node.
    expect(await page.locator('section.node .cloud-view[data-readiness]').count()).toBe(4);
  };

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`no Chromium at ${CHROMIUM}: the dashboard's browser test needs Debian's chromium package (apt-get install -y chromium), or KEDGE_CHROMIUM=<path>`);
    }
    dir = await mkdtemp(join(tmpdir(), 'kedge-dashboard-'));
    shots = await mkdtemp(join(tmpdir(), 'kedge-dashboard-shots-'));
    demo = await startDemo({ nodes: 3, dataDir: dir, apiPort: 0, mqttPort: 0, localApiBasePort: 0, timeScale: 10, clock: realClock, logger: silentLogger });
    api = createRemoteClient(demo.apiUrl, (await readCredentials(dir))!.admin);
    for (const node of ['edge-1', 'edge-2', 'edge-3']) await api.create({ resource: 'pods', namespace: 'default', name: `hello-${node}` }, pinned(`hello-${node}`, node));
    await api.create({ resource: 'deployments', group: 'apps', namespace: 'default' }, web);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
    if (shots) await rm(shots, { recursive: true, force: true });
  });

  it('logs in with the link, shows three Ready nodes, and pulls and puts back edge-2’s cable', async () => {
    const response = await page.goto(demo.dashboardUrl);
    expect(response?.status()).toBe(200);
    await page.waitForURL((url) => !url.searchParams.has('token'));

    for (const node of ['edge-1', 'edge-2', 'edge-3']) {
      await page.locator(`${card(node)} .cloud-view[data-readiness="Ready"]`).waitFor({ timeout: 15_000 });
      await page.locator(`${card(node)} .edge-view tr[data-phase="Running"]`).first().waitFor({ timeout: 15_000 });
    }
    // The three edges and the cloud's own control-plane node (no demo controls: no edge runs it).
    expect(await page.locator('.cloud-view[data-readiness="Ready"]').count()).toBe(4);
    expect(await page.locator(`${card('kedge-control-plane')} .controls`).isHidden()).toBe(true);
    await shoot('1-ready');

    await page.getByRole('button', { name: 'Cut link of edge-2' }).click();
    await page.locator(`${card('edge-2')} .cloud-view[data-readiness="Unknown"]`).waitFor({ timeout: 20_000 });
    await page.locator(`${card('edge-2')} .edge-view[data-connection="offline"]`).waitFor({ timeout: 10_000 });
    // The contrast the page is for: the cloud does not know, the edge runs on.
    expect(await page.locator(`${card('edge-2')} .edge-view tr[data-phase="Running"]`).count()).toBeGreaterThan(0);
    expect(await page.locator(`${card('edge-2')} .edge-view`).textContent()).toContain('hello-edge-2');
    expect(await page.locator(`${card('edge-1')} .cloud-view`).getAttribute('data-readiness')).toBe('Ready');
    // Only the cable's other state is offered.
    expect(await page.getByRole('button', { name: 'Cut link of edge-2' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Cut link of edge-1' }).isDisabled()).toBe(false);
    // The taint manager's deadline, counted down: 300 s of toleration at time scale 10.
    // The kube-system agents' daemon pods tolerate it for ever, as every DaemonSet's pods do.
    await page.locator(`${card('edge-2')} .cloud-view .eviction`, { hasText: /^\d+ of \d+ pods evicted in 0:[0-3]\d; the others stay \(they tolerate the taint for ever\)$/ }).waitFor({ timeout: 15_000 });
    expect(await page.locator(`${card('edge-1')} .cloud-view .eviction`).isHidden()).toBe(true);
    const cut = await shoot('2-cut');
    if (WRITE_README_IMAGE) {
      await mkdir(resolve(README_IMAGE, '..'), { recursive: true });
      await copyFile(cut, README_IMAGE);
    }
    await expectReadinessAsKubectlPrintsIt('hello-edge-2');

    await page.getByRole('button', { name: 'Heal link of edge-2' }).click();
    await page.locator(`${card('edge-2')} .cloud-view[data-readiness="Ready"]`).waitFor({ timeout: 20_000 });
    await page.locator(`${card('edge-2')} .edge-view[data-connection="connected"]`).waitFor({ timeout: 10_000 });
    await shoot('3-healed');
  }, 90_000);

  it('crashes an edge process from the page: the edge comes back with its pods', async () => {
    const before = await page.locator(`${card('edge-3')} .edge-view tr[data-phase="Running"]`).count();
    await page.getByRole('button', { name: 'Crash edge process of edge-3 (kill -9)' }).click();
    await page.locator('#status', { hasText: 'Crash edge process of edge-3 (kill -9): done' }).waitFor({ timeout: 20_000 });
    await page.locator(`${card('edge-3')} .edge-view[data-connection="connected"]`).waitFor({ timeout: 10_000 });
    await page.locator(`${card('edge-3')} .edge-view tr[data-phase="Running"]`).nth(before - 1).waitFor({ timeout: 10_000 });
    expect(await page.locator(`${card('edge-3')} .edge-view`).textContent()).toContain('process running');
  });

  it('scales a Deployment and stops and starts the scheduler from the page', async () => {
    const web = page.locator('ul.deployments li', { hasText: 'web' });
    await web.locator('.replicas', { hasText: / of 3 ready$/ }).waitFor({ timeout: 15_000 });
    await page.getByLabel('Replicas of web').fill('1');
    await page.getByRole('button', { name: 'Scale web' }).click();
    await web.locator('.replicas', { hasText: '1 of 1 ready' }).waitFor({ timeout: 15_000 });

    const scheduler = page.locator('table.components tr', { has: page.locator('th', { hasText: /^scheduler$/ }) });
    await page.getByRole('button', { name: 'Stop scheduler' }).click();
    await scheduler.locator('.badge', { hasText: 'down' }).waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Start scheduler' }).click();
    await scheduler.locator('.badge', { hasText: 'up' }).waitFor({ timeout: 10_000 });
    expect(await page.locator('#status').textContent()).toMatch(/Start scheduler: done$/);
  });

  it('keeps the session in no cookie (other ports of 127.0.0.1 never see it), and through a reload', async () => {
    expect(await page.context().cookies()).toEqual([]);
    await page.reload();
    await page.locator(`${card('edge-1')} .cloud-view[data-readiness="Ready"]`).waitFor({ timeout: 15_000 });
    expect(await page.locator('#logged-out').isHidden()).toBe(true);
  });

  it('keeps the Events panel whole in a short window: between the header and the bottom, scrolling within itself', async () => {
    await page.setViewportSize({ width: 1280, height: 640 });
    try {
      // More events than the panel can show at once, however few the steps before made.
      const made = new Date(realClock.now()).toISOString();
      for (let i = 0; i < 40; i++) {
        await api.create({ resource: 'events', namespace: 'default' }, {
          apiVersion: 'v1', kind: 'Event', metadata: { name: `filler-${i}`, namespace: 'default' },
          involvedObject: { kind: 'Node', name: 'edge-1' }, reason: 'Filler', message: `line ${i} of a long list`, type: 'Normal', firstTimestamp: made, lastTimestamp: made, count: 1,
        } as KubeObject);
      }
      await page.locator('#events li', { hasText: 'line 39 of a long list' }).waitFor({ timeout: 10_000 });
      // The page's own scripts have the DOM; this file has Node's types only, so the elements are untyped here.
      await page.locator('html').evaluate((html) => html.ownerDocument.defaultView.scrollTo({ top: html.scrollHeight, behavior: 'instant' }));
      const box = await page.locator('#events-heading').evaluate((heading) => {
        const view = heading.ownerDocument.defaultView;
        const panel = heading.closest('section');
        const items = panel.querySelectorAll('li');
        const last = items[items.length - 1]!;
        let scroller = last.parentElement;
        while (scroller !== panel && !/auto|scroll/.test(view.getComputedStyle(scroller).overflowY)) scroller = scroller.parentElement;
        const overflowing = scroller.scrollHeight > scroller.clientHeight;
        scroller.scrollTop = scroller.scrollHeight;
        const edges = (el: typeof panel): { top: number; bottom: number } => ({ top: el.getBoundingClientRect().top, bottom: el.getBoundingClientRect().bottom });
        const header: number = edges(heading.ownerDocument.querySelector('header')).bottom;
        const viewport: number = view.innerHeight;
        return { header, overflowing: overflowing as boolean, panel: edges(panel), last: edges(last), within: edges(scroller), viewport };
      });
      expect(box.overflowing).toBe(true);
      expect(box.panel.top).toBeGreaterThanOrEqual(box.header - 1);
      expect(box.panel.bottom).toBeLessThanOrEqual(box.viewport + 1);
      expect(box.last.bottom).toBeLessThanOrEqual(Math.min(box.within.bottom, box.viewport) + 1);
      expect(box.last.top).toBeGreaterThanOrEqual(box.within.top - 1);
      await shoot('4-events');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  }, 60_000);

  it('greys out the page and disables every control while the cloud does not answer, and comes back when it does', async () => {
    await page.locator('#feeds', { hasText: /^Live/ }).waitFor({ timeout: 15_000 });
    const from = await page.evaluate(() => performance.timeOrigin + performance.now());
    // The browser's requests fail as when the cloud is gone (watches already open carry on).
    await page.route('**/{api,apis,kedge}/**', (route) => route.abort('connectionrefused'));
    try {
      await expectFrozen(from);
    } finally {
      await page.unroute('**/{api,apis,kedge}/**');
    }
    await page.locator('#feeds', { hasText: /^Live/ }).waitFor({ timeout: 15_000 });
    expect(await page.locator('#page').evaluate((el) => el.matches(':disabled') || el.classList.contains('stale'))).toBe(false);
    expect(await page.getByRole('button', { name: 'Cut link of edge-1' }).isEnabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Stop scheduler' }).isEnabled()).toBe(true);
  }, 60_000);

  it('lets the spent link in no more: a fresh browser gets the 401 page, and at / is told how to log in', async () => {
    const context = await browser.newContext();
    try {
      const fresh = await context.newPage();
      const response = await fresh.goto(demo.dashboardUrl);
      expect(response?.status()).toBe(401);
      expect(await fresh.locator('main').textContent()).toContain('This link was used already or has expired.');
      await fresh.goto(new URL('/', demo.dashboardUrl).href);
      await fresh.locator('#logged-out').waitFor({ state: 'visible', timeout: 10_000 });
      expect(await fresh.locator('#logged-out').textContent()).toContain('Not logged in');
    } finally {
      await context.close();
    }
  });

  it('shows what the cloud last said, greyed and with no live control, once the demo has stopped', async () => {
    const from = await page.evaluate(() => performance.timeOrigin + performance.now());
    await demo.stop();
    await expectFrozen(from);
    await shoot('5-stopped');
  }, 60_000);
});
