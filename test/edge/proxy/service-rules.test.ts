import { describe, expect, it } from 'vitest';
import { planRules } from '../../../edge/network/proxy/rule-plan.js';
import { serviceRules, type RuleInputs, type ServiceRule } from '../../../edge/network/proxy/service-rules.js';
import { address, endpoints, podOn, service } from './proxy-fixtures.js';

const web = service('web', [{ name: 'http', port: 80, targetPort: 8080 }]);
const webEndpoints = (...addresses: ReturnType<typeof address>[]) => endpoints('web', addresses, [{ name: 'http', port: 8080 }]);
const inputs = (fields: Partial<RuleInputs>): RuleInputs => ({ services: [], endpoints: [], pods: [], nodeName: 'edge-1', ...fields });
const endpointsOfWeb = (i: RuleInputs): string[] | undefined => serviceRules(i).find((r) => r.key === 'default/web:http')?.endpoints;

describe('serviceRules: the forwarding table from cached Services, Endpoints and pods', () => {
  it('one rule per TCP Service port, keyed by ServicePortName, with the ready endpoints at their port', () => {
    const rules = serviceRules(inputs({ services: [web], endpoints: [webEndpoints(address('127.64.2.3'), address('127.64.3.4'))] }));
    expect(rules).toEqual([
      { key: 'default/web:http', namespace: 'default', service: 'web', portName: 'http', port: 80, clusterIP: '10.96.0.10', endpoints: ['127.64.2.3:8080', '127.64.3.4:8080'] },
    ]);
  });

  it.each<[string, Partial<RuleInputs>, string[] | undefined]>([
    ['no Endpoints yet: a rule with no endpoint', { services: [web] }, []],
    ['notReadyAddresses are not served', { services: [web], endpoints: [endpoints('web', [address('127.64.2.3')], [{ name: 'http', port: 8080 }], [address('127.64.2.9')])] }, ['127.64.2.3:8080']],
    ['an Endpoints port of another name is not this port', { services: [web], endpoints: [endpoints('web', [address('127.64.2.3')], [{ name: 'metrics', port: 9090 }])] }, []],
    ['a remote endpoint is kept whatever the edge knows', { services: [web], endpoints: [webEndpoints(address('127.64.2.3', 'edge-2', 'w-remote'))] }, ['127.64.2.3:8080']],
    ['a local endpoint whose pod is Running and Ready is kept', { services: [web], endpoints: [webEndpoints(address('127.64.1.2', 'edge-1', 'w1'))], pods: [podOn('w1', true)] }, ['127.64.1.2:8080']],
    ['a local endpoint whose pod turned unready here is taken out', { services: [web], endpoints: [webEndpoints(address('127.64.1.2', 'edge-1', 'w1'))], pods: [podOn('w1', false)] }, []],
    ['publishNotReadyAddresses: a local endpoint whose pod is not ready is kept', { services: [{ ...web, spec: { ...web.spec, publishNotReadyAddresses: true } }], endpoints: [webEndpoints(address('127.64.1.2', 'edge-1', 'w1'))], pods: [podOn('w1', false)] }, ['127.64.1.2:8080']],
    ['publishNotReadyAddresses: a local endpoint whose pod the edge does not hold is still taken out', { services: [{ ...web, spec: { ...web.spec, publishNotReadyAddresses: true } }], endpoints: [webEndpoints(address('127.64.1.2', 'edge-1', 'w1'))] }, []],
    ['a local endpoint whose pod is not running here is taken out', { services: [web], endpoints: [webEndpoints(address('127.64.1.2', 'edge-1', 'w1'))], pods: [podOn('w1', true, 'Failed')] }, []],
    ['a local endpoint whose pod the edge does not hold is taken out', { services: [web], endpoints: [webEndpoints(address('127.64.1.2', 'edge-1', 'w1'))] }, []],
    ['a local endpoint of a pod replaced under its name (other uid) is taken out', { services: [web], endpoints: [webEndpoints(address('127.64.1.2', 'edge-1', 'w1'))], pods: [{ ...podOn('w1', true), metadata: { name: 'w1', namespace: 'default', uid: 'other' } }] }, []],
    ['a local address without a pod reference (Endpoints by hand) is kept', { services: [web], endpoints: [webEndpoints(address('127.64.1.2', 'edge-1'))] }, ['127.64.1.2:8080']],
  ])('%s', (_, fields, expected) => expect(endpointsOfWeb(inputs(fields))).toEqual(expected));

  it('endpoint addresses that are not IP literals, or the machine\'s own loopback (127.0.0.1, ::1), are refused and listed by Service', () => {
    const refused = new Map<string, string[]>();
    const eps = webEndpoints(address('127.0.0.1'), address('::1'), address('localhost'), address('127.64.2.3'), address('::2'));
    expect(serviceRules(inputs({ services: [web], endpoints: [eps] }), refused).find((r) => r.key === 'default/web:http')?.endpoints).toEqual(['127.64.2.3:8080', '::2:8080']);
    expect(refused).toEqual(new Map([['default/web', ['127.0.0.1', '::1', 'localhost']]]));
  });

  it.each<[string, ReturnType<typeof service>]>([
    ['headless (clusterIP None)', service('h', [{ port: 80 }], { clusterIP: 'None' })],
    ['ExternalName', service('x', [{ port: 80 }], { type: 'ExternalName', clusterIP: '', externalName: 'example.com' })],
    ['no ClusterIP allocated', service('n', [{ port: 80 }], { clusterIP: '' })],
  ])('%s: no rule', (_, s) => expect(serviceRules(inputs({ services: [s] }))).toEqual([]));

  it('UDP and SCTP ports get no rule (the data plane serves TCP only)', () => {
    const dns = service('dns', [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }]);
    expect(serviceRules(inputs({ services: [dns] })).map((r) => r.key)).toEqual(['default/dns:dns-tcp']);
  });

  it('sessionAffinity ClientIP: its timeout, 10800 s by default; None: no affinity', () => {
    const sticky = service('a', [{ port: 80 }], { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } });
    const defaulted = service('b', [{ port: 80 }], { sessionAffinity: 'ClientIP' });
    const none = service('c', [{ port: 80 }], { sessionAffinity: 'None' });
    expect(serviceRules(inputs({ services: [sticky, defaulted, none] })).map((r) => r.affinityMs)).toEqual([60_000, 10_800_000, undefined]);
  });

  it('NodePort and LoadBalancer Services get their nodePorts; a ClusterIP one does not', () => {
    const np = service('np', [{ port: 80, nodePort: 30080 }], { type: 'NodePort' });
    const lb = service('lb', [{ port: 80, nodePort: 30081 }], { type: 'LoadBalancer' });
    const cip = service('cip', [{ port: 80, nodePort: 30082 }]);
    expect(serviceRules(inputs({ services: [np, lb, cip] })).map((r) => [r.service, r.nodePort])).toEqual([['cip', undefined], ['lb', 30081], ['np', 30080]]);
  });
});

describe('planRules: rules in place → rules wanted', () => {
  const rule = (key: string, endpoints: string[], extra: Partial<ServiceRule> = {}): ServiceRule => ({ key, namespace: 'default', service: key, portName: '', port: 80, clusterIP: '10.96.0.1', endpoints, ...extra });
  const current = new Map([['a', rule('a', ['1.1.1.1:80'])], ['b', rule('b', [])], ['c', rule('c', [])]]);

  it.each<[string, ServiceRule[], unknown[]]>([
    ['nothing changed: nothing to do', [rule('a', ['1.1.1.1:80']), rule('b', []), rule('c', [])], []],
    ['a new Service port opens, a gone one closes', [rule('a', ['1.1.1.1:80']), rule('b', []), rule('c', []), rule('d', [])].filter((r) => r.key !== 'c'), [{ type: 'close', key: 'c' }, { type: 'open', rule: rule('d', []) }]],
    ['endpoints changed: update', [rule('a', ['1.1.1.1:80', '2.2.2.2:80']), rule('b', []), rule('c', [])], [{ type: 'update', rule: rule('a', ['1.1.1.1:80', '2.2.2.2:80']) }]],
    ['a nodePort appeared: update', [rule('a', ['1.1.1.1:80']), rule('b', [], { nodePort: 30000 }), rule('c', [])], [{ type: 'update', rule: rule('b', [], { nodePort: 30000 }) }]],
  ])('%s', (_, desired, actions) => expect(planRules(desired, current)).toEqual(actions));
});
