import { describe, expect, it } from 'vitest';
import { HubPort, JoinPort } from '../../cloud/api-ports.js';
import type { ApiRequest, ApiResponse } from '../../cloud/apiserver/index.js';
import type { HubStats } from '../../cloud/hub/index.js';
import { JOIN_MAX_BODY_BYTES, JOIN_PATH } from '../../cloud/join/index.js';
import type { LogOptions, ObjectRef } from '../../shared/protocol/envelope.js';
import type { StreamRequest } from '../../shared/protocol/streams.js';
import type { Pod } from '../../shared/types.js';
import type { PodStream } from '../../cloud/apiserver/subresources/pod-streams.js';

const pod: Pod = { metadata: { namespace: 'default', name: 'web', uid: 'u1', resourceVersion: '7' }, spec: { nodeName: 'edge-1', containers: [{ name: 'app', image: 'i' }] } };
const chunk = { text: 'hi\n', cursor: { containerId: 'c', time: 1, count: 1 }, exited: false };

describe('the hub port', () => {
  it('answers Unavailable for logs and has no figures until the hub is up', async () => {
    const port = new HubPort();
    await expect(port.logs(pod, {})).rejects.toMatchObject({ code: 'Unavailable', message: 'the cloud hub is starting' });
    await expect(port.open(pod, { kind: 'portforward', port: 80 })).rejects.toMatchObject({ code: 'Unavailable', message: 'the cloud hub is starting' });
    expect(port.stats()).toBeUndefined();
    expect(port.nodeUsages()).toEqual([]);
  });
  it('then asks the hub for the log from the pod\'s node, for its streams and for its figures', async () => {
    const port = new HubPort();
    const asked: [string, ObjectRef, LogOptions][] = [];
    const figures = { malformed: 1, received: 2 } as HubStats;
    const stream = {} as PodStream;
    const opened: [Pod, StreamRequest][] = [];
    port.connect({ podLogs: async (...args) => (asked.push(args), chunk), stats: () => figures, streams: { open: async (...args) => (opened.push(args), stream) }, nodeUsages: () => [] });
    expect(await port.open(pod, { kind: 'portforward', port: 80 })).toBe(stream);
    expect(opened).toEqual([[pod, { kind: 'portforward', port: 80 }]]);
    expect(await port.logs(pod, { tailLines: 1 })).toEqual(chunk);
    expect(asked).toEqual([['edge-1', { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u1', resourceVersion: '7' }, { tailLines: 1 }]]);
    expect(port.stats()).toBe(figures);
    expect(() => port.connect({ podLogs: async () => chunk, stats: () => figures, streams: { open: async () => stream }, nodeUsages: () => [] })).toThrow('connected already');
  });
  it('then asks the hub for the log from the pod\'s node, for its figures and for usage', async () => {
    const port = new HubPort();
    const asked: [string, ObjectRef, LogOptions][] = [];
    const figures = { malformed: 1, received: 2 } as HubStats;
    const usages = [{ node: 'edge-1', usage: { time: 1, windowMs: 15_000, node: { cpu: '1n', memory: '1Ki' }, pods: [] } }];
    port.connect({ podLogs: async (...args) => (asked.push(args), chunk), stats: () => figures, streams: { open: async () => ({}) as PodStream }, nodeUsages: () => usages });
    expect(await port.logs(pod, { tailLines: 1 })).toEqual(chunk);
    expect(asked).toEqual([['edge-1', { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u1', resourceVersion: '7' }, { tailLines: 1 }]]);
    expect(port.stats()).toBe(figures);
    expect(port.nodeUsages()).toBe(usages);
    expect(() => port.connect({ podLogs: async () => chunk, stats: () => figures, streams: { open: async () => ({}) as PodStream }, nodeUsages: () => [] })).toThrow('connected already');
  });
});

describe('the join port', () => {
  const req = { method: 'POST', path: JOIN_PATH } as ApiRequest;
  it('knows the join paths\' body limit at once, and serves them once joining is up', () => {
    const port = new JoinPort();
    expect(port.bodyLimit(JOIN_PATH)).toBe(JOIN_MAX_BODY_BYTES);
    expect(port.bodyLimit('/api/v1/pods')).toBeUndefined();
    expect(port.serve(req, JOIN_PATH)).toBeUndefined();
    const joined = Promise.resolve({} as ApiResponse);
    port.connect((_req, path) => (path === JOIN_PATH ? joined : undefined));
    expect(port.serve(req, JOIN_PATH)).toBe(joined);
    expect(port.serve(req, '/api/v1/pods')).toBeUndefined();
  });
});
