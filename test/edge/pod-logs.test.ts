import { describe, expect, it } from 'vitest';
import { answerLogRequests, cursorAfter, formatLog, linesAfter, logAfter, pickContainer, type LogRequestDeps } from '../../edge/edged/pod-logs.js';
import type { ContainerInfo } from '../../edge/runtime/runtime.js';
import { simLogLines, SIM_LOG_PERIOD_MS } from '../../edge/runtime/sim-logs.js';
import { decodeDown, decodeUp, encode, MAX_LOG_BYTES } from '../../shared/protocol/codec.js';
import { EnvelopeStamper, type LogOptions } from '../../shared/protocol/envelope.js';
import type { Pod } from '../../shared/types.js';

const pod = (...names: string[]): Pod => ({ metadata: { name: 'web', uid: 'u1' }, spec: { containers: names.map((name) => ({ name, image: 'i' })) } });
const run = (name: string, attempt: number, extra: Partial<ContainerInfo> = {}): ContainerInfo =>
  ({ id: `${name}-${attempt}`, sandboxId: 's', podUid: 'u1', name, attempt, image: 'kedge.io/app:1', state: 'running', createdAt: 0, ...extra });

describe('which container a log request means', () => {
  const cases: [string, Pod, ContainerInfo[], Parameters<typeof pickContainer>[2], string][] = [
    ['the only container, newest run', pod('app'), [run('app', 0), run('app', 1)], {}, 'app-1'],
    ['the previous run', pod('app'), [run('app', 0), run('app', 1)], { previous: true }, 'app-0'],
    ['a named container', pod('app', 'side'), [run('app', 0), run('side', 0)], { container: 'side' }, 'side-0'],
    ['no name with two containers', pod('app', 'side'), [], {}, 'a container name must be specified for pod web, choose one of: [app side]'],
    ['an unknown container', pod('app'), [], { container: 'nope' }, 'container nope is not valid for pod web'],
    ['not started yet', pod('app'), [], {}, 'container "app" in pod "web" is waiting to start: ContainerCreating'],
    ['no previous run', pod('app'), [run('app', 0)], { previous: true }, 'previous terminated container "app" in pod "web" not found'],
  ];
  it.each(cases)('%s', (_what, p, runs, options, expected) => {
    const picked = pickContainer(p, runs, options);
    expect('id' in picked ? picked.id : 'error' in picked ? picked.error : undefined).toBe(expected);
  });
});

describe('formatting a log', () => {
  const lines = [1, 2, 3].map((i) => ({ time: Date.UTC(2026, 0, 1, 0, 0, i), text: `line ${i}` }));
  it('keeps the tail and adds timestamps when asked', () => {
    expect(formatLog(lines, {})).toBe('line 1\nline 2\nline 3\n');
    expect(formatLog(lines, { tailLines: 2 })).toBe('line 2\nline 3\n');
    expect(formatLog(lines, { tailLines: 0 })).toBe('');
    expect(formatLog(lines, { tailLines: 1, timestamps: true })).toBe('2026-01-01T00:00:03.000Z line 3\n');
  });
  it('keeps the lines since a time, or since some seconds before now, then the tail', () => {
    expect(formatLog(lines, { sinceTime: Date.UTC(2026, 0, 1, 0, 0, 2) })).toBe('line 2\nline 3\n');
    expect(formatLog(lines, { sinceSeconds: 2 }, Date.UTC(2026, 0, 1, 0, 0, 4))).toBe('line 2\nline 3\n');
    expect(formatLog(lines, { sinceSeconds: 1, tailLines: 5 }, Date.UTC(2026, 0, 1, 0, 0, 4))).toBe('line 3\n');
  });
});

describe('following a log from a cursor [SYNC-16]', () => {
  // Three lines in the same millisecond, then one later: the cursor must tell them apart.
  const lines = [{ time: 10, text: 'a' }, { time: 20, text: 'b1' }, { time: 20, text: 'b2' }, { time: 20, text: 'b3' }, { time: 30, text: 'c' }];
  const at = (time: number, count: number) => ({ containerId: 'app-0', time, count });
  it.each([
    ['from the start', at(0, 0), ['a', 'b1', 'b2', 'b3', 'c']],
    ['after a whole millisecond', at(10, 1), ['b1', 'b2', 'b3', 'c']],
    ['within a millisecond', at(20, 2), ['b3', 'c']],
    ['at the end', at(30, 1), []],
  ])('slices %s', (_what, cursor, expected) => {
    expect(linesAfter(lines, cursor).map((l) => l.text)).toEqual(expected);
  });
  it('moves the cursor past what was sent, counting lines of the same millisecond across answers', () => {
    expect(cursorAfter(at(0, 0), lines.slice(0, 3))).toEqual(at(20, 2));
    expect(cursorAfter(at(20, 2), lines.slice(3, 4))).toEqual(at(20, 3));
    expect(cursorAfter(at(20, 3), [])).toEqual(at(20, 3));
  });
  it('answers the lines after the cursor, and says exited only once nothing is left', () => {
    expect(logAfter(lines, at(20, 2), false, false)).toEqual({ text: 'b3\nc\n', cursor: at(30, 1), exited: false });
    expect(logAfter(lines, at(30, 1), true, true)).toEqual({ text: '', cursor: at(30, 1), exited: true });
    expect(logAfter(lines, at(20, 3), true, true).text).toBe('1970-01-01T00:00:00.030Z c\n');
  });
  it('sends no more than one message carries, and the rest on the next ask', () => {
    const big = [0, 1, 2].map((i) => ({ time: 100 + i, text: String(i).repeat(MAX_LOG_BYTES / 2 - 10) }));
    const first = logAfter(big, at(0, 0), false, true);
    expect(first).toMatchObject({ cursor: at(101, 1), exited: false });
    expect(first.text.split('\n')).toHaveLength(3);
    const rest = logAfter(big, first.cursor, false, true);
    expect(rest).toMatchObject({ text: `${'2'.repeat(MAX_LOG_BYTES / 2 - 10)}\n`, cursor: at(102, 1), exited: true });
    const huge = logAfter([{ time: 1, text: 'x'.repeat(MAX_LOG_BYTES * 2) }], at(0, 0), false, false);
    expect([Buffer.byteLength(huge.text), huge.cursor]).toEqual([MAX_LOG_BYTES, at(1, 1)]);
  });
});

describe('a simulated container log', () => {
  it('says when it started, that it runs every minute, and how it ended', () => {
    const c = run('app', 2, { startedAt: 1_000, finishedAt: 1_000 + 2.5 * SIM_LOG_PERIOD_MS, state: 'exited', exitCode: 3, reason: 'Error' });
    expect(simLogLines(c, 10 * SIM_LOG_PERIOD_MS).map((l) => l.text)).toEqual([
      '[kedge sim] app: started (image kedge.io/app:1, attempt 2)',
      '[kedge sim] app: running for 1m',
      '[kedge sim] app: running for 2m',
      '[kedge sim] app: exited with code 3 (Error)',
    ]);
    expect(simLogLines(run('app', 0), 5 * SIM_LOG_PERIOD_MS)).toEqual([]);
  });
});

describe('log messages on the wire [SYNC-16]', () => {
  const cloud = new EnvelopeStamper('cloud', 'c1');
  const edge = new EnvelopeStamper('edge-1', 'e1');
  const ref = { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u1' };
  const cursor = { containerId: 'app-0', time: 5, count: 1 };
  it('accepts well-formed requests and responses', () => {
    expect(decodeDown(encode(cloud.stamp({ type: 'logRequest', ref, body: { container: 'app', tailLines: 10, timestamps: true, sinceSeconds: 5 } }))).ok).toBe(true);
    expect(decodeDown(encode(cloud.stamp({ type: 'logRequest', ref, body: { sinceTime: 1_000, cursor } }))).ok).toBe(true);
    expect(decodeUp(encode(edge.stamp({ type: 'logResponse', parentId: 'c1.1', body: { text: 'hi\n', cursor, exited: false } }))).ok).toBe(true);
    expect(decodeUp(encode(edge.stamp({ type: 'logResponse', parentId: 'c1.1', body: { error: 'nope', code: 'NotFound' } }))).ok).toBe(true);
  });
  it('drops malformed ones with a reason', () => {
    const badTail = { ...cloud.stamp({ type: 'logRequest', ref, body: {} }), body: { tailLines: -1 } };
    expect(decodeDown(JSON.stringify(badTail))).toEqual({ ok: false, reason: 'logRequest: body.tailLines must be a non-negative integer' });
    const badBody = { ...edge.stamp({ type: 'logResponse', parentId: 'c1.1', body: { text: '', cursor, exited: true } }), body: { error: 'x', code: 'Teapot' } };
    expect(decodeUp(JSON.stringify(badBody))).toEqual({ ok: false, reason: 'logResponse: body must carry text, or an error and its code' });
    const request = (body: object) => decodeDown(JSON.stringify({ ...cloud.stamp({ type: 'logRequest', ref, body: {} }), body }));
    expect(request({ sinceSeconds: 0 })).toEqual({ ok: false, reason: 'logRequest: body.sinceSeconds must be a positive integer' });
    expect(request({ sinceTime: '2026-01-01T00:00:00Z' })).toEqual({ ok: false, reason: 'logRequest: body.sinceTime must be a time in ms' });
    expect(request({ cursor: { containerId: 'c', time: -1, count: 0 } })).toEqual({ ok: false, reason: 'logRequest: body.cursor must count time and lines' });
    const response = (body: object) => decodeUp(JSON.stringify({ ...edge.stamp({ type: 'logResponse', parentId: 'c1.1', body: { text: '', cursor, exited: true } }), body }));
    expect(response({ text: 'hi', cursor })).toEqual({ ok: false, reason: 'logResponse: body.exited must be a boolean' });
    expect(response({ text: 'hi', exited: false })).toEqual({ ok: false, reason: 'logResponse: body.cursor.containerId must be a string' });
  });
});

describe('answering the cloud\'s log requests [SYNC-16]', () => {
  const cloud = new EnvelopeStamper('cloud', 'c1');
  const request = (uid: string, body: LogOptions = {}) => cloud.stamp({ type: 'logRequest' as const, ref: { kind: 'Pod', namespace: 'default', name: 'web', uid }, body });
  const held = { uid: 'u1', kind: 'Pod' as const, namespace: 'default', name: 'web', object: pod('app') };
  const exited = run('app', 0, { state: 'exited' });
  function answerer(runtime: LogRequestDeps['runtime'], send: LogRequestDeps['send'] = async () => 'sent') {
    const sent: Parameters<LogRequestDeps['send']>[0][] = [];
    const answer = answerLogRequests({ cache: { objects: () => [held] }, runtime, clock: { now: () => 1_000 }, send: (draft) => (sent.push(draft), send(draft)) });
    return { answer, sent };
  }
  const runtime: LogRequestDeps['runtime'] = { listContainers: async () => [exited], logs: async () => [{ time: 5, text: 'hello' }] };

  it('answers with the log of the pod held under the uid, naming the request', async () => {
    const { answer, sent } = answerer(runtime);
    const asked = request('u1', { timestamps: true });
    await answer(asked);
    expect(sent).toEqual([{ type: 'logResponse', parentId: asked.id, body: { text: '1970-01-01T00:00:00.005Z hello\n', cursor: { containerId: 'app-0', time: 5, count: 1 }, exited: true } }]);
  });
  it('answers NotFound for a pod it does not hold, or when the runtime fails', async () => {
    const { answer, sent } = answerer({ ...runtime, listContainers: () => Promise.reject(new Error('the runtime is closed')) });
    await answer(request('u2'));
    await answer(request('u1'));
    expect(sent.map((d) => d.body)).toEqual([{ error: 'the pod is not on this node', code: 'NotFound' }, { error: 'the runtime is closed', code: 'NotFound' }]);
  });
  it('drops an answer it cannot send: the cloud times out', async () => {
    const { answer, sent } = answerer(runtime, () => Promise.reject(new Error('offline')));
    await expect(answer(request('u1'))).resolves.toBeUndefined();
    expect(sent).toHaveLength(1);
  });
});
