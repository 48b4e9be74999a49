import { describe, expect, it } from 'vitest';
import { OVER_CAPACITY_ANNOTATION, truncateSubsets } from '../../../cloud/controllers/endpoints/capacity.js';
import { planEndpoints } from '../../../cloud/controllers/endpoints/plan.js';
import type { EndpointSubset, Service } from '../../../shared/service-types.js';
import type { Pod } from '../../../shared/types.js';

const addresses = (n: number, base: string) => Array.from({ length: n }, (_, i) => ({ ip: `${base}.${i}` }));
const sizes = (subsets: EndpointSubset[]) => subsets.map((s) => [s.addresses?.length ?? 0, s.notReadyAddresses?.length ?? 0]);

describe('Endpoints capacity (truncateEndpoints)', () => {
  it('leaves Endpoints within the limit alone', () => {
    const subsets = [{ addresses: addresses(3, '10.0.0'), notReadyAddresses: addresses(2, '10.0.1') }];
    expect(truncateSubsets(subsets, 5)).toEqual({ subsets, truncated: false });
  });

  it('cuts not-ready addresses first, in proportion', () => {
    const subsets = [{ addresses: addresses(4, '10.0.0'), notReadyAddresses: addresses(6, '10.0.1') }, { notReadyAddresses: addresses(2, '10.0.2') }];
    const out = truncateSubsets(subsets, 8);
    expect(out.truncated).toBe(true);
    expect(sizes(out.subsets)).toEqual([[4, 3], [0, 1]]);
  });

  it('keeps only ready addresses, each subset its share, when they alone are too many', () => {
    const subsets = [{ addresses: addresses(6, '10.0.0'), notReadyAddresses: addresses(1, '10.0.1') }, { addresses: addresses(3, '10.0.2') }];
    expect(sizes(truncateSubsets(subsets, 6).subsets)).toEqual([[4, 0], [2, 0]]);
  });

  it('marks a Service with more than 1000 pods as over capacity', () => {
    const service: Service = { metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] } };
    const pods: Pod[] = Array.from({ length: 1001 }, (_, i) => ({
      metadata: { name: `p${i}`, namespace: 'default', uid: `u${i}`, labels: { app: 'web' } },
      spec: { containers: [] },
      status: { phase: 'Running', podIP: `10.1.${Math.floor(i / 256)}.${i % 256}`, conditions: [{ type: 'Ready', status: 'True' }] },
    }));
    const [action] = planEndpoints({ namespace: 'default', name: 'web' }, service, pods, undefined);
    expect(action?.type).toBe('create');
    if (action?.type !== 'create') return;
    expect(action.endpoints.subsets![0]!.addresses).toHaveLength(1000);
    expect(action.endpoints.metadata.annotations).toEqual({ [OVER_CAPACITY_ANNOTATION]: 'truncated' });
    const under = planEndpoints({ namespace: 'default', name: 'web' }, service, pods.slice(1), { ...action.endpoints, metadata: { ...action.endpoints.metadata, resourceVersion: '9' } });
    expect(under[0]?.type === 'update' && under[0].endpoints.metadata.annotations).toBeUndefined();
  });
});
