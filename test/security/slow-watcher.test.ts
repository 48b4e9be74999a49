import { request, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { PodLogSource } from '../../cloud/apiserver/subresources/pod-log.js';
import { ADMIN, guardedApi, type GuardedApi } from '../support/guarded-api.js';
import { waitFor } from '../support/wait.js';

const configmaps = '/api/v1/namespaces/default/configmaps';
const WRITES = 600;
const DEADLINE_MS = 20_000;
/** 64 KiB a change: the sockets' own buffers fill after some dozens. */
const bulk = 'x'.repeat(64 * 1024);

interface Follower {
  res: IncomingMessage;
  lines: string[];
  ended(): boolean;
  failed(): boolean;
  close(): void;
}

/** A GET whose body is kept line by line; `reading: false` leaves it unread until `res.resume()`. */
async function follow(url: string, reading: boolean, onLine: () => void = () => {}): Promise<Follower> {
  const lines: string[] = [];
  let ended = false;
  let failed = false;
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${ADMIN}` } }, resolve);
    req.on('error', reject);
    req.end();
  });
  let partial = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      onLine();
    }
  });
  res.on('end', () => (ended = partial === ''));
  res.on('error', () => (failed = true));
  res.on('aborted', () => (failed = true));
  if (!reading) res.pause();
  return { res, lines, ended: () => ended, failed: () => failed, close: () => res.destroy() };
}

const revisionOf = (line: string): number => Number((JSON.parse(line) as { object: { metadata: { resourceVersion: string } } }).object.metadata.resourceVersion);

describe('a client that stops reading is cut off, as kube-apiserver cuts a watcher whose buffer is full', () => {
  let f: GuardedApi;
  const followers: Follower[] = [];
  afterEach(async () => {
    for (const w of followers.splice(0)) w.close();
    await f?.close();
  });

  it('closes a non-reading watcher on a busy kind after a bounded backlog, while another watcher gets every event', async () => {
    f = await guardedApi({ streamLimits: { watchEvents: 100, textBytes: 1024 * 1024 } });
    const api = f.api.loopback(ADMIN);
    const ref = { resource: 'configmaps', namespace: 'default' };
    await api.create(ref, { metadata: { name: 'busy' }, data: { v: '0' } });
    const from = f.store.revision;
    let seen = 0;
    const wake: (() => void)[] = [];
    const fast = await follow(`${f.server.url}${configmaps}?watch=true&resourceVersion=${from}`, true, () => {
      seen++;
      wake.splice(0).forEach((w) => w());
    });
    const slow = await follow(`${f.server.url}${configmaps}?watch=true&resourceVersion=${from}`, false);
    followers.push(fast, slow);
    let cutAt: number | undefined;
    for (let n = 1; n <= WRITES; n++) {
      await api.replace({ ...ref, name: 'busy' }, { metadata: { name: 'busy' }, data: { v: String(n), bulk } });
      // lockstep with the reading watcher: it never lags, however busy the machine
      while (seen < n) await new Promise<void>((resolve) => wake.push(resolve));
      if (cutAt === undefined && f.refused('slow-watcher') > 0) cutAt = n;
    }
    expect(cutAt, 'the slow watcher was cut while the writes went on').toBeLessThan(WRITES / 2);
    expect(f.refused('slow-watcher')).toBe(1);
    expect(fast.lines.map(revisionOf)).toEqual(Array.from({ length: WRITES }, (_, i) => from + 1 + i));

    // What was written before the cut still arrives, whole, and the stream ends cleanly.
    slow.res.resume();
    await waitFor(() => slow.ended() || slow.failed(), 'the slow watch to end', DEADLINE_MS);
    expect([slow.ended(), slow.failed()]).toEqual([true, false]);
    const got = slow.lines.map(revisionOf);
    expect(got).toEqual(Array.from({ length: got.length }, (_, i) => from + 1 + i));
    expect(cutAt! - got.length, 'cut once 101 events waited beyond what its connection took').toBe(101);

    // The client watches again from the last version it saw and misses nothing.
    const again = await follow(`${f.server.url}${configmaps}?watch=true&resourceVersion=${got.at(-1)}`, true);
    followers.push(again);
    await waitFor(() => again.lines.length === WRITES - got.length, 'the rest of the changes', DEADLINE_MS);
    expect(again.lines.map(revisionOf).at(-1)).toBe(from + WRITES);
  });

  it('closes a followed log whose reader stopped reading', async () => {
    const chunk = 'y'.repeat(256 * 1024) + '\n';
    let polls = 0;
    const podLogs: PodLogSource = { logs: async () => ({ text: chunk, cursor: { containerId: 'c', time: ++polls, count: 0 }, exited: false }) };
    f = await guardedApi({ streamLimits: { watchEvents: 100, textBytes: 1024 * 1024 }, deps: { podLogs } });
    await f.api.loopback(ADMIN).create({ resource: 'pods', namespace: 'default' }, { metadata: { name: 'chatty' }, spec: { nodeName: 'edge-1', containers: [{ name: 'c', image: 'i' }] } });
    const reader = await follow(`${f.server.url}/api/v1/namespaces/default/pods/chatty/log?follow=true`, false);
    followers.push(reader);
    for (let i = 0; i < 200 && f.refused('slow-reader') === 0; i++) await f.clock.advance(500);
    expect(f.refused('slow-reader')).toBe(1);
    const pollsAtCut = polls;
    await f.clock.advance(5000);
    expect(polls, 'the edge is asked no more').toBe(pollsAtCut);
  });
});
