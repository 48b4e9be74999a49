import { describe, expect, it } from 'vitest';
import mqttPacket from 'mqtt-packet';
import { PacketFramer } from '../../cloud/hub/packet-framer.js';

const publish = (bytes: number): Buffer =>
  mqttPacket.generate({ cmd: 'publish', topic: 'kedge/v1/a/up', payload: Buffer.alloc(bytes), qos: 1, messageId: 1, dup: false, retain: false });
const ping = (): Buffer => mqttPacket.generate({ cmd: 'pingreq' });

describe('PacketFramer', () => {
  it('counts PUBLISH packets however the stream is cut', () => {
    const stream = Buffer.concat([publish(10), ping(), publish(300), publish(20_000), ping()]);
    for (const cut of [1, 2, 3, 7, 64, stream.length]) {
      const framer = new PacketFramer(1 << 20);
      let publishes = 0;
      for (let i = 0; i < stream.length; i += cut) publishes += framer.feed(stream.subarray(i, i + cut)).publishes;
      expect(publishes, `cut every ${cut} bytes`).toBe(3);
    }
  });

  it('stops at the first packet whose announced size is over the limit, before its body arrives', () => {
    const framer = new PacketFramer(1024);
    expect(framer.feed(publish(100))).toEqual({ publishes: 1 });
    const big = publish(5000);
    expect(framer.feed(big.subarray(0, 4)).oversized).toBe(big.length);
  });

  it('stops before a PUBLISH it may not pass, and carries on from there next time', () => {
    const [a, b, c] = [publish(10), publish(20), publish(30)];
    const framer = new PacketFramer(1 << 20);
    let budget = 1;
    const take = (): boolean => budget-- > 0;
    const first = framer.feed(Buffer.concat([a, ping(), b, c]), take);
    expect(first).toEqual({ publishes: 1, stoppedAt: a.length + ping().length });
    budget = 5;
    expect(framer.feed(Buffer.concat([b, c]), take)).toEqual({ publishes: 2 });
  });

  it('calls a remaining length of five bytes not MQTT', () => {
    expect(new PacketFramer(1 << 28).feed(Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x01]))).toMatchObject({ malformed: true });
  });
});
