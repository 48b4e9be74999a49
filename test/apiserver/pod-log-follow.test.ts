import { describe, expect, it } from 'vitest';
import { cutToBytes, followLog, LOG_FOLLOW_POLL_MS } from '../../cloud/apiserver/subresources/pod-log-follow.js';
import { FakeClock } from '../../shared/clock.js';
import { KedgeError } from '../../shared/errors.js';
import type { LogChunk, LogCursor } from '../../shared/protocol/envelope.js';

const at = (count: number): LogCursor => ({ containerId: 'app-0', time: 1, count });
const chunk = (text: string, count: number, exited = false): LogChunk => ({ text, cursor: at(count), exited });

/** A follower over an edge that answers from `answers`, one per poll; records the cursors it was asked after. */
function setup(answers: (LogChunk | Error)[], exists = () => true) {
  const clock = new FakeClock();
  const asked: LogCursor[] = [];
  const source = {
    clock,
    next: async (cursor: LogCursor) => {
      asked.push(cursor);
      const answer = answers.shift() ?? chunk('', cursor.count);
      if (answer instanceof Error) throw answer;
      return answer;
    },
    podExists: async () => exists(),
  };
  return { clock, asked, source };
}

function collect(t: ReturnType<typeof setup>, first: LogChunk, limit?: number) {
  const out = { text: '', done: false };
  const sub = followLog(first, t.source, limit).subscribe({ next: (s) => (out.text += s), complete: () => (out.done = true) });
  return { out, sub };
}

describe('a followed log [SYNC-16]', () => {
  it('writes the first chunk, then asks after the cursor every poll, and ends when the run has exited', async () => {
    const t = setup([chunk('b\n', 2), chunk('', 2), chunk('c\n', 3, true)]);
    const { out } = collect(t, chunk('a\n', 1));
    expect(out).toEqual({ text: 'a\n', done: false });
    await t.clock.advance(LOG_FOLLOW_POLL_MS - 1);
    expect(t.asked).toEqual([]);
    await t.clock.advance(1);
    expect(out.text).toBe('a\nb\n');
    await t.clock.advance(2 * LOG_FOLLOW_POLL_MS);
    expect(out).toEqual({ text: 'a\nb\nc\n', done: true });
    expect(t.asked).toEqual([at(1), at(2), at(2)]);
    expect(t.clock.pending).toBe(0);
  });

  it('ends at once when the first chunk is all there will be', () => {
    const t = setup([]);
    expect(collect(t, chunk('a\n', 1, true)).out).toEqual({ text: 'a\n', done: true });
    expect(t.clock.pending).toBe(0);
  });

  it('stops asking once the client has gone', async () => {
    const t = setup([]);
    const { out, sub } = collect(t, chunk('a\n', 1));
    await t.clock.advance(LOG_FOLLOW_POLL_MS);
    expect(t.clock.pending).toBe(1);
    sub.unsubscribe();
    expect(t.clock.pending).toBe(0);
    await t.clock.advance(10 * LOG_FOLLOW_POLL_MS);
    expect([t.asked.length, out.done]).toEqual([1, false]);
  });

  it('drops an answer that arrives after the client has gone, and asks no more', async () => {
    const t = setup([]);
    let answer!: (c: LogChunk) => void;
    t.source.next = (cursor) => {
      t.asked.push(cursor);
      return new Promise((resolve) => (answer = resolve));
    };
    const { out, sub } = collect(t, chunk('a\n', 1));
    await t.clock.advance(LOG_FOLLOW_POLL_MS);
    sub.unsubscribe();
    answer(chunk('late\n', 2));
    await t.clock.advance(10 * LOG_FOLLOW_POLL_MS);
    expect([out.text, t.asked.length, t.clock.pending]).toEqual(['a\n', 1, 0]);
  });

  it.each([
    ['the edge cannot answer (node away, pod gone there)', [new KedgeError('Unavailable', 'node "edge-1" went away')], () => true],
    ['the pod is gone from the store', [], () => false],
  ])('ends quietly when %s', async (_what, answers, exists) => {
    const t = setup(answers, exists);
    const { out } = collect(t, chunk('a\n', 1));
    await t.clock.advance(LOG_FOLLOW_POLL_MS);
    expect(out).toEqual({ text: 'a\n', done: true });
    expect(t.clock.pending).toBe(0);
  });

  it('ends once limitBytes are written, cut inside a chunk', async () => {
    const t = setup([chunk('bbbb\n', 2)]);
    const { out } = collect(t, chunk('a\n', 1), 5);
    await t.clock.advance(LOG_FOLLOW_POLL_MS);
    expect(out).toEqual({ text: 'a\nbbb', done: true });
    expect(t.clock.pending).toBe(0);
  });

  it('cuts text to a byte count without splitting a character', () => {
    expect(cutToBytes('héllo', 2)).toBe('h');
    expect(cutToBytes('héllo', 3)).toBe('hé');
    expect(cutToBytes('héllo', Infinity)).toBe('héllo');
  });
});
