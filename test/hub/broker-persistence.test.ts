import { afterEach, describe, expect, it } from 'vitest';
import { BrokerPersistence } from '../../cloud/hub/broker-persistence.js';
import { brokerWithClients } from '../support/test-broker.js';
import { waitFor } from '../support/wait.js';

describe('the embedded broker persistence', () => {
  it('answers without looking while no session is persistent: the same settled answers, no work per message', async () => {
    const persistence = new BrokerPersistence();
    expect(persistence.subscriptionsByTopic('kedge/v1/a/up')).toBe(persistence.subscriptionsByTopic('kedge/v1/b/up'));
    expect(await persistence.subscriptionsByTopic('kedge/v1/a/up')).toEqual([]);
    expect(persistence.outgoingEnqueueCombi([], {})).toBe(persistence.outgoingEnqueueCombi([], {}));
    expect(persistence.outgoingClearMessageId({ id: 'a' }, { messageId: 1 })).toBe(persistence.outgoingClearMessageId({ id: 'b' }, { messageId: 2 }));
    expect(await persistence.outgoingClearMessageId({ id: 'a' }, { messageId: 1 })).toBeUndefined();
  });

  describe('in aedes', () => {
    const fixture = brokerWithClients();
    afterEach(() => fixture.close());

    it('keeps the QoS 1 messages of a persistent session while it is away, delivers them when it is back, and forgets them once acknowledged', async () => {
      const persistence = new BrokerPersistence();
      await fixture.start({ persistence });
      const live = await fixture.connect('live');
      await live.client.subscribeAsync('t/#', { qos: 1 });
      const away = await fixture.connect('away', false);
      await away.client.subscribeAsync('t/#', { qos: 1 });
      await away.client.endAsync();
      const publisher = await fixture.connect('pub');
      await publisher.client.publishAsync('t/1', 'one', { qos: 1 });
      await publisher.client.publishAsync('t/2', 'two', { qos: 1 });
      await waitFor(() => live.got.length === 2, 'the live deliveries');
      expect(live.got).toEqual(['one', 'two']);
      expect(await queuedFor(persistence, 'away')).toBe(2);

      const back = await fixture.connect('away', false);
      await waitFor(() => back.got.length === 2, 'the queued messages');
      expect(back.got).toEqual(['one', 'two']);
      await waitFor(async () => (await queuedFor(persistence, 'away')) === 0, 'the acknowledged messages forgotten');
    });
  });
});

async function queuedFor(persistence: BrokerPersistence, clientId: string): Promise<number> {
  let count = 0;
  for await (const packet of (persistence as unknown as { outgoingStream(client: { id: string }): AsyncIterable<unknown> }).outgoingStream({ id: clientId })) if (packet) count++;
  return count;
}
