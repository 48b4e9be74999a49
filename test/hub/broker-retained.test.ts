import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { BrokerPersistence } from '../../cloud/hub/broker-persistence.js';

type Retained = { topic: string; payload: Buffer; cmd: 'publish'; qos: 0; retain: true; dup: false; brokerId: string; brokerCounter: number };
const packet = (topic: string, payload: string): Retained => ({ cmd: 'publish', topic, payload: Buffer.from(payload), qos: 0, retain: true, dup: false, brokerId: 'b', brokerCounter: 1 });

async function topicsOf(stream: Readable): Promise<string[]> {
  const out: string[] = [];
  stream.on('data', (p: Retained) => out.push(`${p.topic}=${p.payload.toString()}`));
  await once(stream, 'end');
  return out;
}

describe('the embedded broker persistence: retained messages', () => {
  async function storedWith(...packets: Retained[]) {
    const persistence = new BrokerPersistence();
    for (const p of packets) await persistence.storeRetained(p);
    return persistence;
  }

  it('finds the retained message of each exact topic without testing every retained topic', async () => {
    const persistence = await storedWith(...Array.from({ length: 100 }, (_, i) => packet(`kedge/presence/node-${i}`, `p${i}`)), packet('kedge/down/node-7', 'x'));
    const scan = vi.spyOn(Map.prototype, Symbol.iterator);
    const found = await topicsOf(persistence.createRetainedStreamCombi(['kedge/presence/node-3', 'kedge/down/node-7', 'kedge/none']));
    expect(found).toEqual(['kedge/presence/node-3=p3', 'kedge/down/node-7=x']);
    expect(scan).not.toHaveBeenCalled();
    scan.mockRestore();
  });

  it('forgets a topic whose retained message is replaced by an empty one, as aedes does', async () => {
    const persistence = await storedWith(packet('kedge/presence/a', 'on'), packet('kedge/presence/a', ''), packet('kedge/presence/b', 'one'), packet('kedge/presence/b', 'two'));
    expect(await topicsOf(persistence.createRetainedStreamCombi(['kedge/presence/a', 'kedge/presence/b']))).toEqual(['kedge/presence/b=two']);
    expect(await topicsOf(persistence.createRetainedStreamCombi(['kedge/presence/+']))).toEqual(['kedge/presence/b=two']);
  });

  it('leaves wildcard patterns to aedes own matching', async () => {
    const persistence = await storedWith(packet('kedge/presence/a', '1'), packet('kedge/presence/b', '2'), packet('other/x', '3'));
    expect((await topicsOf(persistence.createRetainedStreamCombi(['kedge/presence/+']))).sort()).toEqual(['kedge/presence/a=1', 'kedge/presence/b=2']);
    expect((await topicsOf(persistence.createRetainedStreamCombi(['#']))).sort()).toEqual(['kedge/presence/a=1', 'kedge/presence/b=2', 'other/x=3']);
  });
});
