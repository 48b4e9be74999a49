import { describe, expect, it } from 'vitest';
import { containerConfig } from '../../../edge/edged/container-config.js';
import { podServiceEnv, serviceEnvVars, servicesForPod } from '../../../edge/network/proxy/service-env.js';
import type { Service } from '../../../shared/service-types.js';
import { pod } from '../fixtures.js';
import { service } from './proxy-fixtures.js';

// The example of kubelet's envvars (research §2): ClusterIP 10.0.0.11, 6379 unnamed, 9121 named metrics.
const redis = service('redis-master', [{ port: 6379, protocol: 'TCP' }, { name: 'metrics', port: 9121, protocol: 'TCP' }], { clusterIP: '10.0.0.11' });
const kubernetes = service('kubernetes', [{ name: 'https', port: 443, targetPort: 6443 }], { clusterIP: '10.96.0.1' });
const noPortals = () => undefined;

describe('Service env vars as the kubelet builds them', () => {
  it('redis-master with no portal on this node: exactly kubelet\'s variables with the ClusterIP', () => {
    expect(Object.fromEntries(serviceEnvVars([redis], noPortals))).toEqual({
      REDIS_MASTER_SERVICE_HOST: '10.0.0.11',
      REDIS_MASTER_SERVICE_PORT: '6379',
      REDIS_MASTER_SERVICE_PORT_METRICS: '9121',
      REDIS_MASTER_PORT: 'tcp://10.0.0.11:6379',
      REDIS_MASTER_PORT_6379_TCP: 'tcp://10.0.0.11:6379',
      REDIS_MASTER_PORT_6379_TCP_PROTO: 'tcp',
      REDIS_MASTER_PORT_6379_TCP_PORT: '6379',
      REDIS_MASTER_PORT_6379_TCP_ADDR: '10.0.0.11',
      REDIS_MASTER_PORT_9121_TCP: 'tcp://10.0.0.11:9121',
      REDIS_MASTER_PORT_9121_TCP_PROTO: 'tcp',
      REDIS_MASTER_PORT_9121_TCP_PORT: '9121',
      REDIS_MASTER_PORT_9121_TCP_ADDR: '10.0.0.11',
    });
  });

  it('with portals on the node address: host and ports are the portals, the names keep the Service ports', () => {
    const portals: Record<string, number> = { 'default/redis-master:': 41001, 'default/redis-master:metrics': 41002 };
    const env = Object.fromEntries(serviceEnvVars([redis], (key) => (portals[key] ? { host: '127.0.1.2', port: portals[key] } : undefined)));
    expect(env).toMatchObject({
      REDIS_MASTER_SERVICE_HOST: '127.0.1.2',
      REDIS_MASTER_SERVICE_PORT: '41001',
      REDIS_MASTER_SERVICE_PORT_METRICS: '41002',
      REDIS_MASTER_PORT: 'tcp://127.0.1.2:41001',
      REDIS_MASTER_PORT_6379_TCP: 'tcp://127.0.1.2:41001',
      REDIS_MASTER_PORT_6379_TCP_PORT: '41001',
      REDIS_MASTER_PORT_6379_TCP_ADDR: '127.0.1.2',
      REDIS_MASTER_PORT_9121_TCP_PORT: '41002',
    });
  });

  it('an IPv6 ClusterIP is bracketed in the URLs', () => {
    const v6 = service('v6', [{ port: 80 }], { clusterIP: 'fd00::10' });
    expect(Object.fromEntries(serviceEnvVars([v6], noPortals))).toMatchObject({ V6_SERVICE_HOST: 'fd00::10', V6_PORT: 'tcp://[fd00::10]:80' });
  });

  const other = service('other', [{ port: 80 }], {}, 'team-b');
  const headless = service('headless', [{ port: 80 }], { clusterIP: 'None' });
  const shadow = service('kubernetes', [{ port: 8443 }], { clusterIP: '10.96.9.9' }, 'team-b');
  const names = (p: ReturnType<typeof pod>, services: Service[]): string[] => servicesForPod(p, services).map((s) => `${s.metadata.namespace}/${s.metadata.name}`).sort();

  it.each<[string, Partial<ReturnType<typeof pod>['spec']>, string, Service[], string[]]>([
    ['its namespace\'s Services and default/kubernetes', {}, 'default', [redis, kubernetes, other, headless], ['default/kubernetes', 'default/redis-master']],
    ['enableServiceLinks false: default/kubernetes only', { enableServiceLinks: false }, 'default', [redis, kubernetes, other], ['default/kubernetes']],
    ['another namespace: its own Services and default/kubernetes', {}, 'team-b', [redis, kubernetes, other], ['default/kubernetes', 'team-b/other']],
    ['a Service named kubernetes in the pod\'s namespace wins over default\'s', {}, 'team-b', [kubernetes, shadow], ['team-b/kubernetes']],
  ])('which Services: %s', (_, spec, namespace, services, expected) => {
    const p = pod('client', 'u1', spec);
    p.metadata.namespace = namespace;
    expect(names(p, services)).toEqual(expected);
  });
});

describe('Service env vars in a container\'s env', () => {
  const where = { podIP: '127.64.1.2', hostIP: '127.0.1.1' };
  const serviceEnv = (p: ReturnType<typeof pod>) => podServiceEnv(p, [redis], noPortals);

  it('added where the name is unset: env and envFrom win; $(VAR) in env and args sees them', () => {
    const p = pod('client', 'u1', {
      containers: [{
        name: 'app',
        env: [{ name: 'REDIS_MASTER_SERVICE_PORT', value: 'mine' }, { name: 'URL', value: 'redis://$(REDIS_MASTER_SERVICE_HOST):$(REDIS_MASTER_SERVICE_PORT)' }],
        args: ['--addr', '$(REDIS_MASTER_PORT_6379_TCP_ADDR)'],
      }],
    });
    const { config } = containerConfig(p, p.spec.containers[0]!, 0, where, { objects: { configMap: () => undefined, secret: () => undefined }, serviceEnv });
    expect(config.env).toMatchObject({ REDIS_MASTER_SERVICE_PORT: 'mine', REDIS_MASTER_SERVICE_HOST: '10.0.0.11', URL: 'redis://10.0.0.11:mine' });
    expect(config.args).toEqual(['--addr', '10.0.0.11']);
  });

  it('without the dep, no Service variable', () => {
    const p = pod('client', 'u1');
    expect(Object.keys(containerConfig(p, p.spec.containers[0]!, 0, where).config.env ?? {}).filter((k) => k.startsWith('REDIS'))).toEqual([]);
  });
});
