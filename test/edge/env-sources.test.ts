import { describe, expect, it } from 'vitest';
import { containerEnv, EnvError } from '../../edge/edged/container-config.js';
import type { ConfigMap, Secret } from '../../shared/config-types.js';
import type { Container, EnvFromSource, EnvVar } from '../../shared/types.js';
import type { PodObjects } from '../../edge/volumes/pod-objects.js';
import { pod } from './fixtures.js';

const where = { podIP: '10.244.7.3', hostIP: '192.168.1.20' };
const b64 = (text: string): string => Buffer.from(text).toString('base64');
const settings: ConfigMap = { metadata: { name: 'settings', namespace: 'default' }, data: { mode: 'fast', level: '3' }, binaryData: { blob: b64('x') } };
const db: Secret = { metadata: { name: 'db', namespace: 'default' }, data: { password: b64('s3cret'), user: b64('admin') } };
const objects: PodObjects = {
  configMap: (ns, name) => (ns === 'default' && name === 'settings' ? settings : undefined),
  secret: (ns, name) => (ns === 'default' && name === 'db' ? db : undefined),
};
const resources = { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m' } };
const envOf = (env: EnvVar[], envFrom: EnvFromSource[] = []) => {
  const container: Container = { name: 'app', env, envFrom, resources };
  return containerEnv(pod('web', 'uid-1'), container, where, { objects }).env;
};
const cm = (name: string, key: string, optional?: boolean): EnvVar['valueFrom'] => ({ configMapKeyRef: { name, key, ...(optional === undefined ? {} : { optional }) } });
const sec = (name: string, key: string, optional?: boolean): EnvVar['valueFrom'] => ({ secretKeyRef: { name, key, ...(optional === undefined ? {} : { optional }) } });
const res = (resource: string, divisor?: string): EnvVar['valueFrom'] => ({ resourceFieldRef: { resource, ...(divisor ? { divisor } : {}) } });

describe('env from ConfigMaps, Secrets and resources (as kubelet makeEnvironmentVariables)', () => {
  it.each<[string, EnvVar[], EnvFromSource[], Record<string, string>]>([
    ['a ConfigMap key', [{ name: 'MODE', valueFrom: cm('settings', 'mode') }], [], { MODE: 'fast' }],
    ['a Secret key, base64-decoded', [{ name: 'PW', valueFrom: sec('db', 'password') }], [], { PW: 's3cret' }],
    ['an optional missing ConfigMap is skipped', [{ name: 'X', valueFrom: cm('nope', 'k', true) }], [], {}],
    ['an optional missing key is skipped', [{ name: 'X', valueFrom: cm('settings', 'nope', true) }], [], {}],
    ['an optional missing Secret key is skipped', [{ name: 'X', valueFrom: sec('db', 'nope', true) }], [], {}],
    ['envFrom a ConfigMap (data only, not binaryData)', [], [{ configMapRef: { name: 'settings' } }], { mode: 'fast', level: '3' }],
    ['envFrom with a prefix', [], [{ prefix: 'DB_', secretRef: { name: 'db' } }], { DB_password: 's3cret', DB_user: 'admin' }],
    ['envFrom an optional missing object', [], [{ configMapRef: { name: 'nope', optional: true } }], {}],
    ['env wins over envFrom, and expands against it', [{ name: 'mode', value: 'slow-$(level)' }], [{ configMapRef: { name: 'settings' } }], { mode: 'slow-3', level: '3' }],
    ['a ConfigMap value is not expanded', [{ name: 'A', value: 'a' }, { name: 'B', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } }], [], { A: 'a', B: 'fast' }],
    ['limits.cpu in cores, rounded up', [{ name: 'CPU', valueFrom: res('limits.cpu') }], [], { CPU: '1' }],
    ['limits.cpu with divisor 1m', [{ name: 'CPU', valueFrom: res('limits.cpu', '1m') }], [], { CPU: '500' }],
    ['requests.cpu with divisor 1m', [{ name: 'CPU', valueFrom: res('requests.cpu', '1m') }], [], { CPU: '250' }],
    ['limits.memory in bytes', [{ name: 'MEM', valueFrom: res('limits.memory') }], [], { MEM: String(128 * 1024 * 1024) }],
    ['limits.memory with divisor 1Mi', [{ name: 'MEM', valueFrom: res('limits.memory', '1Mi') }], [], { MEM: '128' }],
    ['requests.memory defaults to the limit', [{ name: 'MEM', valueFrom: res('requests.memory', '1Mi') }], [], { MEM: '128' }],
    ['limits.ephemeral-storage without a limit: the node allocatable (none)', [{ name: 'E', valueFrom: res('limits.ephemeral-storage') }], [], { E: '0' }],
  ])('%s', (_what, env, envFrom, expected) => expect(envOf(env, envFrom)).toEqual(expected));

  it('a container without limits reads the node allocatable (limits.cpu 4, limits.memory 8Gi)', () => {
    const { env } = containerEnv(pod('web', 'u'), { name: 'app', env: [{ name: 'C', valueFrom: res('limits.cpu') }, { name: 'M', valueFrom: res('limits.memory', '1Gi') }] }, where, { objects });
    expect(env).toEqual({ C: '4', M: '8' });
  });

  it.each<[string, EnvVar[], EnvFromSource[], string]>([
    ['a missing ConfigMap', [{ name: 'X', valueFrom: cm('nope', 'k') }], [], 'configmap "nope" not found'],
    ['a missing ConfigMap key', [{ name: 'X', valueFrom: cm('settings', 'nope') }], [], "couldn't find key nope in ConfigMap default/settings"],
    ['a missing Secret', [{ name: 'X', valueFrom: sec('gone', 'k') }], [], 'secret "gone" not found'],
    ['a missing Secret key', [{ name: 'X', valueFrom: sec('db', 'nope') }], [], "couldn't find key nope in Secret default/db"],
    ['envFrom a missing ConfigMap', [], [{ configMapRef: { name: 'all' } }], 'configmap "all" not found'],
    ['envFrom a missing Secret', [], [{ secretRef: { name: 'all' } }], 'secret "all" not found'],
    ['an unsupported resource', [{ name: 'X', valueFrom: res('limits.nvidia.com/gpu') }], [], 'unsupported container resource : limits.nvidia.com/gpu'],
  ])('%s fails the container with kube\'s message', (_what, env, envFrom, message) => {
    let thrown: unknown;
    try {
      envOf(env, envFrom);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(EnvError);
    expect((thrown as Error).message).toBe(message);
  });
});
