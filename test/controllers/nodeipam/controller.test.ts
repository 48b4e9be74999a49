import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../cloud/client/client.js';
import type { RunningController } from '../../../cloud/controllers/controller.js';
import { memoryEventRecorder } from '../../../cloud/controllers/events.js';
import { clusterCidrConfig, nodeIpamController } from '../../../cloud/controllers/nodeipam/index.js';
import { silentLogger } from '../../../shared/log.js';
import { defaultTiming } from '../../../shared/timing.js';
import type { Node } from '../../../shared/types.js';
import { ADMIN_TOKEN, apiFixture, type ApiFixture } from '../../support/api-fixture.js';
import { withInformers } from '../../support/controller-context.js';
import { pass, runUntil } from '../../support/settle.js';

const nodes = { resource: 'nodes' };
const bare = (name: string): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {} });

/** The node-IPAM controller against the apiserver, with a cluster CIDR of two /24s. */
describe('the node-IPAM controller with the apiserver', () => {
  let f: ApiFixture;
  let api: ApiClient;
  let controller: RunningController;
  let events: ReturnType<typeof memoryEventRecorder>;
  const rangeOf = async (name: string): Promise<string | undefined> => (await api.get<Node>({ ...nodes, name })).spec?.podCIDR;

  beforeEach(async () => {
    f = await apiFixture();
    api = f.api.loopback(ADMIN_TOKEN);
    events = memoryEventRecorder();
    controller = await nodeIpamController(clusterCidrConfig('10.0.0.0/23', 24)).start(withInformers({ api, clock: f.clock, timing: defaultTiming, logger: silentLogger, events }));
  });
  afterEach(async () => {
    await controller.close();
  });

  it('with every range taken, a node waits without one and is told once (CIDRNotAvailable); a deleted node\'s range goes to it', async () => {
    for (const name of ['a', 'b']) {
      await api.create(nodes, bare(name));
      await runUntil(f.clock, async () => (await rangeOf(name)) !== undefined, `${name} with a range`);
    }
    await api.create(nodes, bare('c'));
    await runUntil(f.clock, async () => events.events.length > 0, 'an Event for c');
    for (let beat = 0; beat < 3; beat++) await api.patch({ ...nodes, name: 'c', subresource: 'status' }, { status: { conditions: [{ type: 'Ready', status: 'True', reason: `beat-${beat}` }] } }, 'merge');
    await pass(f.clock, 1_000, 100);
    expect(await rangeOf('c')).toBeUndefined();
    expect(events.events.map((e) => [e.about.metadata.name, e.type, e.reason, e.message])).toEqual([['c', 'Normal', 'CIDRNotAvailable', 'Node c status is now: CIDRNotAvailable']]);

    const freed = await rangeOf('a');
    await api.delete({ ...nodes, name: 'a' });
    await runUntil(f.clock, async () => (await rangeOf('c')) !== undefined, 'c with the freed range');
    expect(await rangeOf('c')).toBe(freed);
  });

  it('started with a node there, writes its range and only that: a label written meanwhile stays', async () => {
    await controller.close();
    await api.create(nodes, bare('a'));
    controller = await nodeIpamController(clusterCidrConfig('10.0.0.0/23', 24)).start(withInformers({ api, clock: f.clock, timing: defaultTiming, logger: silentLogger, events }));
    await api.patch({ ...nodes, name: 'a' }, { metadata: { labels: { rack: 'r1' } } }, 'merge');
    await runUntil(f.clock, async () => (await rangeOf('a')) !== undefined, 'a with a range');
    const node = await api.get<Node>({ ...nodes, name: 'a' });
    expect([node.spec?.podCIDR, node.spec?.podCIDRs, node.metadata.labels]).toEqual(['10.0.0.0/24', ['10.0.0.0/24'], { rack: 'r1' }]);
  });
});
