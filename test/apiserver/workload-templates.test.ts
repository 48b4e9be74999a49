import { describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../shared/daemonset-types.js';
import type { StatefulSet } from '../../shared/statefulset-types.js';
import { deploymentPrinter } from '../../cloud/apiserver/kinds/apps-printers.js';
import { cronJobPrinter, jobPrinter } from '../../cloud/apiserver/kinds/batch-printers.js';
import { daemonSetPrinter } from '../../cloud/apiserver/kinds/daemonset-printers.js';
import { validateDaemonSet } from '../../cloud/apiserver/kinds/daemonset-validation.js';
import { statefulSetResource } from '../../cloud/apiserver/kinds/statefulset-resources.js';
import { validateStatefulSet } from '../../cloud/apiserver/kinds/statefulset-validation.js';

const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i' }], activeDeadlineSeconds: 5 } };
const create = { now: 0, operation: 'create' as const };

describe('what the workload kinds share about their pod templates', () => {
  it('refuses activeDeadlineSeconds in a DaemonSet or StatefulSet template, naming the kind', () => {
    const ds = { metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'a' } }, template, updateStrategy: { type: 'OnDelete' } } } as unknown as DaemonSet;
    const sts = { metadata: { name: 's' }, spec: { selector: { matchLabels: { app: 'a' } }, template, podManagementPolicy: 'OrderedReady', updateStrategy: { type: 'OnDelete' }, persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' } } } as unknown as StatefulSet;
    const deadline = (kind: string) => ({ reason: 'FieldValueInvalid', field: 'spec.template.spec.activeDeadlineSeconds', message: expect.stringContaining(`activeDeadlineSeconds in ${kind} is not Supported`) });
    expect(validateDaemonSet(ds, create)).toEqual([deadline('DaemonSet')]);
    expect(validateStatefulSet(sts, create)).toEqual([deadline('StatefulSet')]);
  });

  it('prints CONTAINERS, IMAGES and SELECTOR as wide columns, each kind with its own selector description', () => {
    const wide = (printer: { columns: { name: string; priority?: number; description?: string }[] }) => printer.columns.filter((c) => c.priority === 1);
    const names = ['Containers', 'Images', 'Selector'];
    expect(wide(deploymentPrinter).map((c) => c.name)).toEqual(names);
    expect(wide(deploymentPrinter)[2]!.description).toMatch(/^Label selector for pods\. Existing ReplicaSets/);
    expect(wide(jobPrinter).map((c) => c.name)).toEqual(names);
    expect(wide(cronJobPrinter)[2]!.description).toBe('A label query over pods that should match the pod count.');
    expect(wide(daemonSetPrinter)[2]!.description).toBe('A label query over pods that are managed by the daemon set.');
    expect(wide(statefulSetResource.printer!).map((c) => c.name)).toEqual(['Containers', 'Images']);
  });
});
