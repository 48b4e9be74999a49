import { hostname, networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { listening } from '../../bin/commands/cloud.js';
import { brokerUrlAsSeenFrom, certificateHosts, isLoopbackAddress } from '../../cloud/network.js';
import { Counters } from '../../shared/counters.js';

describe('where the cloud listens', () => {
  const defaults = { apiHost: '127.0.0.1', mqttHost: '127.0.0.1', apiPort: 8080, mqttPort: 1883 };
  const given = (...names: string[]) => (name: string) => names.includes(name);

  it.each([
    ['loopback by default: both protocols on one port, plain MQTT', {}, given(), { apiPort: 8080, mqttPort: 1883, tlsOnly: false }],
    ['--bind beyond loopback: TLS only, 6443 and 8883', { bind: '0.0.0.0' }, given(), { apiHost: '0.0.0.0', apiPort: 6443, mqttPort: 8883, tlsOnly: true }],
    ['--bind with explicit ports keeps them', { bind: '10.0.0.1', apiPort: 0, mqttPort: 0 }, given('apiPort', 'mqttPort'), { apiPort: 0, mqttPort: 0, tlsOnly: true }],
    ['--insecure: plain traffic, MQTT on its plain port', { bind: '0.0.0.0', insecure: true }, given(), { apiPort: 6443, mqttPort: 1883, tlsOnly: false }],
    ['--bind 127.0.0.1 stays as on loopback', { bind: '127.0.0.1' }, given(), { apiPort: 8080, mqttPort: 1883, tlsOnly: false }],
    ['--mqtt-host beyond loopback alone turns TLS on', { mqttHost: '0.0.0.0' }, given(), { apiPort: 8080, mqttPort: 1883, tlsOnly: true }],
  ])('%s', (_name, options, explicit, expected) => {
    expect(listening({ ...defaults, ...options }, explicit)).toMatchObject(expected);
  });
});

describe('addresses', () => {
  it('tells loopback peers from others', () => {
    for (const a of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['10.0.0.1', '::ffff:10.0.0.1', 'fd00::2', undefined, '']) expect(isLoopbackAddress(a), String(a)).toBe(false);
  });

  it('covers every address of the machine in the certificate when bound to a wildcard', () => {
    expect(certificateHosts(['127.0.0.1'])).toEqual(['127.0.0.1', 'localhost', '::1']);
    expect(certificateHosts(['10.1.2.3', 'cloud.example'])).toEqual(['127.0.0.1', 'localhost', '::1', '10.1.2.3', 'cloud.example']);
    const every = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address.replace(/%.*$/, '')));
    expect(certificateHosts(['0.0.0.0'])).toEqual(expect.arrayContaining(['127.0.0.1', 'localhost', hostname(), ...every]));
    expect(certificateHosts(['0.0.0.0'])).not.toContain('0.0.0.0');
  });

  it('names the broker by the host an edge reached the API under', () => {
    expect(brokerUrlAsSeenFrom('mqtts://127.0.0.1:8883', '10.0.0.1:6443')).toBe('mqtts://10.0.0.1:8883');
    expect(brokerUrlAsSeenFrom('mqtts://127.0.0.1:8883', '[fd00::1]:6443')).toBe('mqtts://[fd00::1]:8883');
    expect(brokerUrlAsSeenFrom('mqtt://broker.example:1883', '10.0.0.1:6443')).toBe('mqtt://broker.example:1883');
    expect(brokerUrlAsSeenFrom('mqtts://127.0.0.1:8883', undefined)).toBe('mqtts://127.0.0.1:8883');
  });

  it('gives a joining edge every member of a broker cluster, each as seen from it', () => {
    expect(brokerUrlAsSeenFrom('mqtts://b1.example:8883,mqtts://b2.example:8883', '10.0.0.1:6443')).toBe('mqtts://b1.example:8883,mqtts://b2.example:8883');
    expect(brokerUrlAsSeenFrom('mqtt://127.0.0.1:1883,mqtt://b2.example:1883', '10.0.0.1:6443')).toBe('mqtt://10.0.0.1:1883,mqtt://b2.example:1883');
  });
});

describe('Counters', () => {
  it('counts by name and labels and prints Prometheus text', () => {
    const c = new Counters().describe('x_total', 'things');
    c.add('x_total', { reason: 'a' });
    c.add('x_total', { reason: 'a' });
    c.add('x_total', { reason: 'b"\\' });
    expect(c.get('x_total', { reason: 'a' })).toBe(2);
    expect(c.total('x_total')).toBe(3);
    expect(c.text()).toBe('# HELP x_total things\n# TYPE x_total counter\nx_total{reason="a"} 2\nx_total{reason="b\\"\\\\"} 1\n');
  });
});
