import { describe, expect, it } from 'vitest';
import { servicesToUpdate } from '../../../cloud/controllers/endpoints/memberships.js';
import type { Service } from '../../../shared/service-types.js';
import type { Pod } from '../../../shared/types.js';

const svc = (name: string, selector?: Record<string, string>): Service => ({ metadata: { name, namespace: 'default' }, spec: { selector } });
const pod = (labels: Record<string, string>, status: Pod['status'] = { podIP: '10.244.0.2' }): Pod => ({ metadata: { name: 'p', namespace: 'default', labels }, spec: { containers: [] }, status });

describe('servicesToUpdate', () => {
  const services = [svc('web', { app: 'web' }), svc('all-web', { app: 'web', tier: 'front' }), svc('db', { app: 'db' }), svc('manual')];

  it('queues the Services that select a new or deleted pod', () => {
    expect(servicesToUpdate(services, undefined, pod({ app: 'web', tier: 'front' }))).toEqual(['default/web', 'default/all-web']);
    expect(servicesToUpdate(services, pod({ app: 'db' }), undefined)).toEqual(['default/db']);
  });

  it('queues the Services selecting the pod before or after a label change', () => {
    expect(servicesToUpdate(services, pod({ app: 'web' }), pod({ app: 'db' }))).toEqual(['default/web', 'default/db']);
  });

  it('queues on readiness or IP changes, and not on changes an Endpoints does not show', () => {
    const before = pod({ app: 'web' });
    expect(servicesToUpdate(services, before, pod({ app: 'web' }, { podIP: '10.244.0.2', conditions: [{ type: 'Ready', status: 'True' }] }))).toEqual(['default/web']);
    expect(servicesToUpdate(services, before, pod({ app: 'web' }, { podIP: '10.244.0.9' }))).toEqual(['default/web']);
    const annotated = { ...before, metadata: { ...before.metadata, annotations: { note: 'x' } }, status: { ...before.status, startTime: 'now' } };
    expect(servicesToUpdate(services, before, annotated)).toEqual([]);
  });
});
