import { describe, expect, it } from 'vitest';
import type { StatusCause } from '../../shared/errors.js';
import type { ObjectMeta } from '../../shared/types.js';
import { validateObjectMeta } from '../../cloud/apiserver/admission/meta-validation.js';
import { dns1123SubdomainErrors, generateNamePrefixErrors } from '../../cloud/apiserver/admission/name-formats.js';
import { apiFixture, pod } from '../support/api-fixture.js';

/** ValidateObjectMeta as kube 1.32 words it, and the pod spec rules reached through the API, templates included. */

const QUALIFIED = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const SUBDOMAIN = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const subdomainRule = (value: string, prefix: boolean): string[] => (prefix ? generateNamePrefixErrors(value, dns1123SubdomainErrors) : dns1123SubdomainErrors(value));
const shown = (causes: StatusCause[] | undefined): string[] => (causes ?? []).map((c) => `${c.field}: ${c.message}`);
const metaCauses = (meta: ObjectMeta): string[] => shown(validateObjectMeta(meta, subdomainRule));

describe('object metadata', () => {
  it('checks generateName as a prefix (a trailing "-" is fine) and the name made from it', () => {
    expect(metaCauses({ generateName: 'web-', name: 'web-x7k2p' })).toEqual([]);
    expect(metaCauses({ generateName: 'Web-', name: 'Web-x7k2p' })).toEqual([`metadata.generateName: Invalid value: "Web-": ${SUBDOMAIN}`, `metadata.name: Invalid value: "Web-x7k2p": ${SUBDOMAIN}`]);
    expect(metaCauses({})).toEqual(['metadata.name: Required value: name or generateName is required']);
  });

  it('wants annotation keys to be qualified names (any case) and all annotations within 256 KiB', () => {
    expect(metaCauses({ name: 'a', annotations: { 'Example.COM/Key': 'v', 'a/b/c': 'v', 'bad key': 'v' } })).toEqual([
      `metadata.annotations: Invalid value: "a/b/c": a qualified name ${QUALIFIED} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      `metadata.annotations: Invalid value: "bad key": name part ${QUALIFIED}`,
    ]);
    const big = metaCauses({ name: 'a', annotations: { a: 'x'.repeat(128 * 1024), b: 'y'.repeat(128 * 1024) } });
    expect(big).toEqual(['metadata.annotations: Too long: must have at most 262144 bytes']);
    expect(metaCauses({ name: 'a', annotations: { a: 'x'.repeat(256 * 1024 - 1) } })).toEqual([]);
  });

  it('wants finalizers to be qualified names, and a name without a prefix to be a standard one', () => {
    expect(metaCauses({ name: 'a', finalizers: ['example.com/cleanup', 'foregroundDeletion', 'cleanup', 'a b'] })).toEqual([
      `metadata.finalizers: Invalid value: "a b": name part ${QUALIFIED}`,
      'metadata.finalizers[2]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified',
      `metadata.finalizers[3]: Invalid value: "a b": name part ${QUALIFIED}`,
    ]);
    expect(metaCauses({ name: 'a', finalizers: ['orphan', 'foregroundDeletion'] })).toEqual([
      'metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
    ]);
  });

  it('words label keys and values as kube does', () => {
    expect(metaCauses({ name: 'a', labels: { '/app': 'x'.repeat(64) } })).toEqual([
      'metadata.labels: Invalid value: "/app": prefix part must be non-empty',
      `metadata.labels: Invalid value: "${'x'.repeat(64)}": must be no more than 63 characters`,
    ]);
  });
});

type Status = { message: string; details?: { causes?: StatusCause[] } };

describe('through the API', () => {
  it('answers every cause of a pod at once, in one 422 Invalid', async () => {
    const f = await apiFixture();
    const body = pod('web', { spec: { containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ name: 'Http', containerPort: 80 }], volumeMounts: [{ name: 'data', mountPath: '/data' }] }] } });
    const res = await f.json<Status>('POST', '/api/v1/namespaces/default/pods', { body });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      'Pod "web" is invalid: [spec.containers[0].ports[0].name: Invalid value: "Http": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-), spec.containers[0].volumeMounts[0].name: Not found: "data"]',
    );
  });

  it("names a template's fields under spec.template, as kube does, for every kind with a pod template", async () => {
    const f = await apiFixture();
    const template = { metadata: { labels: { app: 'web' }, annotations: { 'bad key': 'v' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 0 }] }] } };
    const selector = { matchLabels: { app: 'web' } };
    const deploy = await f.json<Status>('POST', '/apis/apps/v1/namespaces/default/deployments', { body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { selector, template: { ...template, spec: { ...template.spec, restartPolicy: 'Always' } } } } });
    expect(shown(deploy.body.details?.causes)).toEqual([`spec.template.annotations: Invalid value: "bad key": name part ${QUALIFIED}`, 'spec.template.spec.containers[0].ports[0].containerPort: Required value']);
    const always = { ...template, spec: { ...template.spec, restartPolicy: 'Always' } };
    for (const [path, kind, spec] of [
      ['/apis/apps/v1/namespaces/default/replicasets', 'ReplicaSet', { selector, template: always }],
      ['/apis/apps/v1/namespaces/default/daemonsets', 'DaemonSet', { selector, template: always }],
      ['/apis/batch/v1/namespaces/default/jobs', 'Job', { template }],
    ] as const) {
      const res = await f.json<Status>('POST', path, { body: { apiVersion: path.includes('batch') ? 'batch/v1' : 'apps/v1', kind, metadata: { name: 'web' }, spec } });
      expect(shown(res.body.details?.causes), kind).toContain('spec.template.spec.containers[0].ports[0].containerPort: Required value');
    }
    const cron = await f.json<Status>('POST', '/apis/batch/v1/namespaces/default/cronjobs', { body: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'nightly' }, spec: { schedule: '0 0 * * *', jobTemplate: { spec: { template } } } } });
    expect(shown(cron.body.details?.causes)).toContain('spec.jobTemplate.spec.template.spec.containers[0].ports[0].containerPort: Required value');
  });
});
