import { describe, expect, it } from 'vitest';
import { MemoryAckLedger } from '../../cloud/hub/ack-ledger.js';
import { LOG_TIMEOUT_MS, LogRequests } from '../../cloud/hub/log-requests.js';
import { NodeSession } from '../../cloud/hub/node-session.js';
import { FakeClock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import { EnvelopeStamper, type DownMessage, type HelloMessage, type LogResponseMessage } from '../../shared/protocol/envelope.js';

function setup() {
  const clock = new FakeClock();
  const cloud = new EnvelopeStamper('cloud', 'c0');
  const edge = new EnvelopeStamper('edge-1', 'e1');
  const wire: DownMessage[] = [];
  const transport = { send: (_n: string, d: Parameters<EnvelopeStamper['stamp']>[0]) => { const m = cloud.stamp(d) as DownMessage; wire.push(m); return m; }, resend: () => {} };
  const session = new NodeSession('edge-1', { clock, timing: { resendMinMs: 100, resendMaxMs: 400 }, ledger: new MemoryAckLedger(), transport });
  const logs = new LogRequests(clock, transport);
  const respond = (parentId: string, body: LogResponseMessage['body'], from = 'edge-1'): string => logs.answer(from, edge.stamp({ type: 'logResponse', parentId, body }) as LogResponseMessage);
  session.hello(edge.stamp({ type: 'hello', body: { bootId: 'b', holds: [] } }) as HelloMessage);
  return { clock, wire, session, logs, respond };
}
const ref = { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u1' };
const chunk = (text: string) => ({ text, cursor: { containerId: 'app-0', time: 1, count: 1 }, exited: false });

describe('LogRequests [SYNC-16]', () => {
  it('resolves with the text the edge sends back, or its error', async () => {
    const t = setup();
    const text = t.logs.ask(t.session, ref, { tailLines: 5 });
    const request = t.wire.find((m) => m.type === 'logRequest')!;
    expect(request).toMatchObject({ ref, body: { tailLines: 5 } });
    expect(t.respond(request.id, chunk('forged\n'), 'edge-2')).toBe('other-node'); // only the node asked may answer
    expect(t.respond(request.id, chunk('hello\n'))).toBe('answered');
    await expect(text).resolves.toEqual(chunk('hello\n'));
    const missing = t.logs.ask(t.session, ref, {});
    t.respond(t.wire.at(-1)!.id, { error: 'the pod is not on this node', code: 'NotFound' });
    await expect(missing).rejects.toMatchObject({ code: 'NotFound', message: 'the pod is not on this node' });
    expect(t.respond('unknown', chunk(''))).toBe('unknown');
  });

  it('gives up with Timeout when the edge does not answer', async () => {
    const t = setup();
    const text = t.logs.ask(t.session, ref, {});
    const outcome = text.catch((e: unknown) => e);
    await t.clock.advance(LOG_TIMEOUT_MS);
    expect(isKedgeError(await outcome, 'Timeout')).toBe(true);
  });

  it('answers at once, naming since when, for a node that went away', async () => {
    const t = setup();
    t.session.offline('e1');
    await t.clock.advance(90_000);
    expect(() => t.logs.ask(t.session, ref, {})).toThrow('node "edge-1" is unreachable since 2026-01-01T00:00:00.000Z (90s ago): cannot get the logs of pod default/web');
  });

  it('gives up at once on what a node was asked when it goes away, and only on that', async () => {
    const t = setup();
    const timers = t.clock.pending;
    const pending = t.logs.ask(t.session, ref, {}).catch((e: unknown) => e);
    t.logs.nodeAway('edge-2');
    t.logs.nodeAway('edge-1');
    expect(await pending).toMatchObject({ code: 'Unavailable', message: 'node "edge-1" went away before it sent the log' });
    expect(t.respond(t.wire.at(-1)!.id, chunk('late\n'))).toBe('unknown');
    expect(t.clock.pending).toBe(timers); // its timeout cancelled
  });
});
