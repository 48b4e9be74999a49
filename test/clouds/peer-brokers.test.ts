import { describe, expect, it } from 'vitest';
import { peerBrokerUrlsOf } from '../../cloud/control-plane-node/index.js';
import type { Lease } from '../../shared/config-types.js';

const lease = (name: string, annotations?: Record<string, string>): Lease => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'kube-node-lease', ...(annotations && { annotations }) } });

describe("peerBrokerUrlsOf: the other clouds' brokers, from their node Leases", () => {
  it("takes every other cloud's marked broker by node name, not this cloud's, and not edges' Leases", () => {
    const leases = [
      lease('cp-c', { 'kedge.io/cloud': 'c:/d', 'kedge.io/broker-url': 'mqtts://10.0.0.3:1883' }),
      lease('edge-1'),
      lease('cp-a', { 'kedge.io/cloud': 'a:/d', 'kedge.io/broker-url': 'mqtts://10.0.0.1:1883' }),
      lease('cp-b', { 'kedge.io/cloud': 'b:/d', 'kedge.io/broker-url': 'mqtts://10.0.0.2:1883' }),
    ];
    expect(peerBrokerUrlsOf(leases, 'b:/d')).toEqual(['mqtts://10.0.0.1:1883', 'mqtts://10.0.0.3:1883']);
  });
});
