import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { streamFrames, validatedInbound } from '../../cloud/hub/broker-link.js';
import type { Inbound } from '../../cloud/hub/inbound.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { encode } from '../../shared/protocol/codec.js';
import { EnvelopeStamper, type UpMessage } from '../../shared/protocol/envelope.js';
import { encodeStreamFrame } from '../../shared/protocol/stream-frame.js';
import { topics } from '../../shared/protocol/topics.js';
import type { Transport, TransportMessage } from '../../shared/transport.js';

describe("the hub's inbound split", () => {
  it('hands stream frames to the streams, and only sync messages to the validated path (none counted malformed)', () => {
    const inbound$ = new Subject<TransportMessage>();
    const transport = { inbound$ } as unknown as Transport;
    let malformed = 0;
    const sync: Inbound[] = [];
    const frames: string[] = [];
    validatedInbound(transport, { clock: new FakeClock(), logger: silentLogger, onMalformed: () => malformed++ }).subscribe((m) => sync.push(m));
    streamFrames(transport).subscribe((m) => frames.push(m.topic));

    const heartbeat = new EnvelopeStamper('edge-1', 'ep').stamp({ type: 'heartbeat' }) as UpMessage;
    inbound$.next({ topic: topics.streamUp('edge-1'), payload: encodeStreamFrame({ type: 'credit', stream: 's', seq: 0, bytes: 1 }), retained: false });
    inbound$.next({ topic: topics.up('edge-1'), payload: encode(heartbeat), retained: false });
    inbound$.next({ topic: topics.streamUp('edge-1'), payload: Buffer.from('not even a frame'), retained: false });

    expect(frames).toEqual([topics.streamUp('edge-1'), topics.streamUp('edge-1')]);
    expect(sync).toEqual([{ node: 'edge-1', channel: 'up', message: heartbeat }]);
    expect(malformed).toBe(0);
  });
});
