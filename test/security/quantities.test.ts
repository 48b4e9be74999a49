import { beforeEach, describe, expect, it } from 'vitest';
import { quantityMilliValue, quantityValue } from '../../cloud/scheduler/quantity.js';
import { QUANTITY_FORMAT_ERROR, parseQuantity } from '../../shared/quantity.js';
import type { Node } from '../../shared/types.js';
import { apiFixture, node, NODE_TOKEN, pod, type ApiFixture } from '../support/api-fixture.js';

const PODS = '/api/v1/namespaces/default/pods';
const FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const RANGE = 'must be between -9223372036854775807 and 9223372036854775807';
type Status = { kind: string; code: number; reason: string; message: string; details?: { causes?: { field?: string; message: string }[] } };

const withResources = (name: string, resources: unknown, extra: Record<string, unknown> = {}) =>
  pod(name, { spec: { containers: [{ name: 'app', image: 'nginx', resources }], ...extra } });

/**
 * Resource quantities are checked at admission with kube's grammar (one request cannot stall
 * the cloud: `cpu: 1e9000000` was accepted, then held the scheduler's event loop for seconds),
 * and nothing downstream parses an unbounded number.
 */
describe('quantities at admission', () => {
  let f: ApiFixture;
  beforeEach(async () => {
    f = await apiFixture();
  });
  const create = (path: string, body: unknown, token?: string) => f.json<Status>('POST', path, { body, token });

  it('cpu: banana is a 422 naming the field, in kube words', async () => {
    const res = await create(PODS, withResources('banana', { requests: { cpu: 'banana' } }));
    expect([res.status, res.body.reason, res.body.message]).toEqual([
      422, 'Invalid', `Pod "banana" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: "banana": ${FORMAT}`,
    ]);
    expect(res.body.details?.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.containers[0].resources.requests[cpu]', message: `Invalid value: "banana": ${FORMAT}` }]);
  });

  it.each([
    ['an exponent past the largest quantity', '1e9000000', RANGE],
    ['a value past 2^63-1', '9223372036854775808', RANGE],
    ['a binary suffix past it', '8Ei', RANGE],
    ['an exponent past int64', '1e99999999999999999999', "unable to parse quantity's suffix"],
    ['an unknown suffix', '1KiB', FORMAT],
    ['a suffix kube does not know', '5mi', "unable to parse quantity's suffix"],
    ['a suffix with no number', 'Mi', FORMAT],
  ])('%s is a 422 (%j)', async (_label, value, why) => {
    const res = await create(PODS, withResources('q', { limits: { memory: value } }));
    expect([res.status, res.body.message]).toEqual([422, `Pod "q" is invalid: spec.containers[0].resources.limits[memory]: Invalid value: ${JSON.stringify(value)}: ${why}`]);
  });

  it('a value that is no string or number is a 400, as a decoding error', async () => {
    const res = await create(PODS, withResources('q', { limits: { memory: true } }));
    expect([res.status, res.body.message]).toEqual([400, 'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal bool into Go struct field ResourceRequirements.spec.containers.resources.limits of type resource.Quantity']);
  });

  it('refuses negative amounts, requests over limits and fractions of countable resources as kube does', async () => {
    const cases: [unknown, string[]][] = [
      [{ limits: { cpu: '-1' } }, ['spec.containers[0].resources.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0']],
      [{ requests: { memory: '-1Mi' } }, ['spec.containers[0].resources.requests[memory]: Invalid value: "-1Mi": must be greater than or equal to 0']],
      [{ requests: { cpu: '2' }, limits: { cpu: '1500m' } }, ['spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1500m']],
      [{ requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '2' } }, ['spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2']],
      [{ requests: { 'example.com/gpu': '1' } }, ['spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources']],
      [{ limits: { 'example.com/gpu': '0.5' } }, ['spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "0.5": must be an integer']],
    ];
    for (const [resources, expected] of cases) {
      const res = await create(PODS, withResources('q', resources));
      expect([JSON.stringify(resources), res.status, res.body.details?.causes?.map((c) => `${c.field}: ${c.message}`)]).toEqual([JSON.stringify(resources), 422, expected]);
    }
  });

  it('checks every quantity a pod carries: init and ephemeral containers, pod overhead and resources, emptyDir size limits', async () => {
    const body = pod('everywhere', {
      spec: {
        containers: [{ name: 'app', image: 'nginx' }],
        initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { cpu: 'x' } } }],
        ephemeralContainers: [{ name: 'debug', image: 'busybox', resources: { limits: { memory: 'y' } } }],
        resources: { limits: { cpu: '-2' } },
        volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1e400' } }],
      },
    });
    const res = await create(PODS, body);
    expect(res.status).toBe(422);
    expect(res.body.details?.causes?.map((c) => c.field)).toEqual([
      'spec.initContainers[0].resources.requests[cpu]',
      'spec.ephemeralContainers[0].resources.limits[memory]',
      'spec.resources.limits[cpu]',
      'spec.volumes[0].emptyDir.sizeLimit',
    ]);
  });

  it("checks a RuntimeClass's pod overhead, which pods of that class get as theirs", async () => {
    const rc = (cpu: unknown) => ({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'heavy' }, handler: 'sim', overhead: { podFixed: { cpu } } });
    const res = await create('/apis/node.k8s.io/v1/runtimeclasses', rc('z'));
    expect([res.status, res.body.message]).toEqual([422, `RuntimeClass "heavy" is invalid: overhead.podFixed[cpu]: Invalid value: "z": ${FORMAT}`]);
    expect((await create('/apis/node.k8s.io/v1/runtimeclasses', rc(0.25))).status).toBe(201);
    const created = await f.json<{ spec: { overhead: unknown } }>('POST', PODS, { body: pod('heavy', { spec: { runtimeClassName: 'heavy', containers: [{ name: 'app', image: 'nginx' }] } }) });
    expect([created.status, created.body.spec.overhead]).toEqual([201, { cpu: '0.25' }]);
  });

  it('checks pod templates of Deployments and ReplicaSets, on create and on patch', async () => {
    const template = (cpu: unknown) => ({ metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu } } }] } });
    const workload = (kind: string, cpu: unknown) => ({ apiVersion: 'apps/v1', kind, metadata: { name: 'w' }, spec: { replicas: 1, selector: { matchLabels: { app: 'w' } }, template: template(cpu) } });
    for (const [kind, path] of [['Deployment', '/apis/apps/v1/namespaces/default/deployments'], ['ReplicaSet', '/apis/apps/v1/namespaces/default/replicasets']] as const) {
      const bad = await create(path, workload(kind, 'banana'));
      expect([kind, bad.status, bad.body.details?.causes?.[0]?.field]).toEqual([kind, 422, 'spec.template.spec.containers[0].resources.requests[cpu]']);
      expect((await create(path, workload(kind, '250m'))).status).toBe(201);
      const patch = { spec: { template: { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '1e9000000' } } }] } } } };
      const patched = await f.json<Status>('PATCH', `${path}/w`, { body: patch, contentType: 'application/strategic-merge-patch+json' });
      expect([kind, patched.status, patched.body.message]).toEqual([kind, 422, `${kind} "w" is invalid: spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: "1e9000000": ${RANGE}`]);
    }
  });

  it('accepts quantities written as JSON numbers, as kube does, and stores them as strings', async () => {
    const res = await f.json<{ spec: { containers: { resources: unknown }[] } }>('POST', PODS, { body: withResources('numbers', { requests: { cpu: 0.5, memory: 1073741824 }, limits: { cpu: 1 } }) });
    expect(res.status).toBe(201);
    expect(res.body.spec.containers[0]!.resources).toEqual({ requests: { cpu: '0.5', memory: '1073741824' }, limits: { cpu: '1' } });
  });

  it("checks a Node's capacity and allocatable, as an edge writes them with its status", async () => {
    const bad = { ...node('edge-1'), status: { ...node('edge-1').status, capacity: { cpu: 'lots' } } };
    const created = await create('/api/v1/nodes', bad);
    expect([created.status, created.body.message]).toEqual([422, `Node "edge-1" is invalid: status.capacity.cpu: Invalid value: "lots": ${FORMAT}`]);
    const numbers = await f.json<Node>('POST', '/api/v1/nodes', { body: { ...node('edge-1'), status: { ...node('edge-1').status, capacity: { pods: 110 } } } });
    expect([numbers.status, numbers.body.status?.capacity]).toEqual([201, { pods: '110' }]);
    const status = { status: { allocatable: { cpu: '1e9000000', pods: '-1' } } };
    const res = await f.json<Status>('PATCH', '/api/v1/nodes/edge-1/status', { body: status, contentType: 'application/merge-patch+json', token: NODE_TOKEN });
    expect([res.status, res.body.details?.causes?.map((c) => `${c.field}: ${c.message}`)]).toEqual([
      422, [`status.allocatable.cpu: Invalid value: "1e9000000": ${RANGE}`, 'status.allocatable.pods: Invalid value: "-1": must be greater than or equal to 0'],
    ]);
  });
});

describe('the quantity parser does bounded work and agrees with kube', () => {
  it('refuses huge values before building a big number, and reads long inputs in one pass', () => {
    // Each of these built a number of millions of digits before: seconds of a blocked event loop.
    expect(quantityMilliValue('1e9000000')).toBeUndefined();
    expect(quantityValue(`1${'0'.repeat(1_000_000)}`)).toBeUndefined();
    expect(quantityValue(`1e${'9'.repeat(1_000_000)}`)).toBeUndefined();
    expect(quantityMilliValue(`0.${'0'.repeat(1_000_000)}1`)).toBe(1);
    expect(quantityMilliValue(`1.${'3'.repeat(1_000_000)}Ki`)).toBe(1365334);
    expect(parseQuantity(`${'1'.repeat(1_000_000)}x`)).toEqual({ ok: false, error: QUANTITY_FORMAT_ERROR });
  });

  it.each([
    ['9223372036854775807', 9223372036854775807n * 10n ** 9n],
    ['1e-12', 1n],
    ['1e-10', 1n],
    ['0.1Ki', 102_400_000_000n],
    ['1e+3', 1000n * 10n ** 9n],
    ['-0', 0n],
    ['7Ei', 7n * 2n ** 60n * 10n ** 9n],
  ])('%s is %d nano-units', (text, nanos) => {
    const parsed = parseQuantity(text);
    expect(parsed.ok && parsed.nanos).toBe(nanos);
  });
});
