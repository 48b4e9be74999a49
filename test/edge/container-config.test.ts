import { describe, expect, it } from 'vitest';
import { containerConfig, containerEnv, expandVars, fieldRefValue } from '../../edge/edged/container-config.js';
import type { Container, EnvVar } from '../../shared/types.js';
import { pod } from './fixtures.js';

const where = { podIP: '10.244.7.3', hostIP: '192.168.1.20' };
const app = (env: EnvVar[], fields: Partial<Container> = {}): Container => ({ name: 'app', env, ...fields });
const known: Record<string, string> = { A: 'a', B: 'b' };

describe('expandVars ($(VAR) as Kubernetes expands it)', () => {
  it.each([
    ['plain', 'plain'],
    ['$(A)', 'a'],
    ['$(A)-$(B)', 'a-b'],
    ['$(MISSING)', '$(MISSING)'],
    ['$$(A)', '$(A)'],
    ['$$$(A)', '$a'],
    ['$$', '$'],
    ['$A', '$A'],
    ['x$', 'x$'],
    ['$(A', '$(A'],
    ['$()', '$()'],
    ['$(constructor)', '$(constructor)'],
  ])('%s → %s', (text, expanded) => expect(expandVars(text, (name) => (Object.hasOwn(known, name) ? known[name] : undefined))).toBe(expanded));
});

describe('fieldRefValue (the downward API in env)', () => {
  const p = pod('web', 'uid-1', { serviceAccountName: 'robot' });
  p.metadata.labels = { app: 'web', 'example.com/tier': 'front' };
  p.metadata.annotations = { note: 'hi' };

  it.each([
    ['metadata.name', 'web'],
    ['metadata.namespace', 'default'],
    ['metadata.uid', 'uid-1'],
    ["metadata.labels['app']", 'web'],
    ["metadata.labels['example.com/tier']", 'front'],
    ["metadata.labels['absent']", ''],
    ["metadata.annotations['note']", 'hi'],
    ['spec.nodeName', 'edge-1'],
    ['spec.serviceAccountName', 'robot'],
    ['status.podIP', '10.244.7.3'],
    ['status.podIPs', '10.244.7.3'],
    ['status.hostIP', '192.168.1.20'],
    ['status.hostIPs', '192.168.1.20'],
    ['metadata.labels', undefined],
    ['spec.containers', undefined],
    ['constructor', undefined],
  ])('%s → %s', (path, value) => expect(fieldRefValue(p, path, where)).toBe(value));

  it('a pod that names no service account runs as "default" (as kube admission sets it)', () => {
    expect(fieldRefValue(pod('web', 'uid-1'), 'spec.serviceAccountName', where)).toBe('default');
  });
});

describe('containerEnv', () => {
  const envOf = (env: EnvVar[], fields: Partial<Container> = {}) => containerEnv(pod('web', 'uid-1'), app(env, fields), where);

  it('expands a value against the variables before it only; unknown references stay', () => {
    const { env } = envOf([
      { name: 'A', value: 'x' },
      { name: 'B', value: '$(A)-$(C)' },
      { name: 'C', value: 'c' },
      { name: 'A', value: '$(A)2' },
      { name: 'D', value: '$(toString)' },
    ]);
    expect(env).toEqual({ A: 'x2', B: 'x-$(C)', C: 'c', D: '$(toString)' });
  });

  it('reads fieldRefs (not expanded), and a variable with neither value nor valueFrom is empty', () => {
    const { env, unset } = envOf([
      { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: 'URL', value: 'http://$(IP):80' },
      { name: 'EMPTY' },
      { name: 'NAME', value: '', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ]);
    expect(env).toEqual({ IP: '10.244.7.3', URL: 'http://10.244.7.3:80', EMPTY: '', NAME: 'web' });
    expect(unset).toEqual([]);
  });

  it('leaves unset a fieldRef the edge cannot read, saying why', () => {
    const { env, unset } = envOf([{ name: 'ODD', valueFrom: { fieldRef: { fieldPath: 'spec.hostname' } } }, { name: 'LATER', value: '$(ODD)' }]);
    expect(env).toEqual({ LATER: '$(ODD)' });
    expect(unset).toEqual(['ODD: fieldRef spec.hostname is not supported']);
  });
});

describe('containerConfig', () => {
  it('expands $(VAR) in command and args against the whole env; $$ escapes', () => {
    const p = pod('web', 'uid-1', {}, { 'kedge.io/start-delay': '1s' });
    const container = app([{ name: 'GREETING', value: 'hi' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }], {
      image: 'busybox',
      command: ['sh', '-c', 'echo $(GREETING) from $(POD)'],
      args: ['$$(GREETING)', '$(NOPE)'],
      workingDir: '/srv',
    });
    expect(containerConfig(p, container, 2, where)).toEqual({
      config: {
        name: 'app',
        attempt: 2,
        image: 'busybox',
        env: { GREETING: 'hi', POD: 'web' },
        command: ['sh', '-c', 'echo hi from web'],
        args: ['$(GREETING)', '$(NOPE)'],
        workingDir: '/srv',
        annotations: { 'kedge.io/start-delay': '1s' },
      },
      unset: [],
    });
  });
});
