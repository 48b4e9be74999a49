import { describe, expect, it } from 'vitest';
import { formatLog, pickContainer } from '../../edge/edged/pod-logs.js';
import type { ContainerInfo } from '../../edge/runtime/runtime.js';
import { simLogLines, SIM_LOG_PERIOD_MS } from '../../edge/runtime/sim-logs.js';
import { decodeDown, decodeUp, encode } from '../../shared/protocol/codec.js';
import { EnvelopeStamper } from '../../shared/protocol/envelope.js';
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
  it('accepts well-formed requests and responses', () => {
    expect(decodeDown(encode(cloud.stamp({ type: 'logRequest', ref, body: { container: 'app', tailLines: 10, timestamps: true } }))).ok).toBe(true);
    expect(decodeUp(encode(edge.stamp({ type: 'logResponse', parentId: 'c1.1', body: { text: 'hi\n' } }))).ok).toBe(true);
    expect(decodeUp(encode(edge.stamp({ type: 'logResponse', parentId: 'c1.1', body: { error: 'nope', code: 'NotFound' } }))).ok).toBe(true);
  });
  it('drops malformed ones with a reason', () => {
    const badTail = { ...cloud.stamp({ type: 'logRequest', ref, body: {} }), body: { tailLines: -1 } };
    expect(decodeDown(JSON.stringify(badTail))).toEqual({ ok: false, reason: 'logRequest: body.tailLines must be a non-negative integer' });
    const badBody = { ...edge.stamp({ type: 'logResponse', parentId: 'c1.1', body: { text: '' } }), body: { error: 'x', code: 'Teapot' } };
    expect(decodeUp(JSON.stringify(badBody))).toEqual({ ok: false, reason: 'logResponse: body must carry text, or an error and its code' });
  });
});
