import type { ConfigMap, Lease, RuntimeClass, Secret } from '../../../shared/config-types.js';
import { ageColumn, nameColumn } from './printers.js';
import type { Printer } from './registry.js';
import { age } from '../rest/tables.js';

/** kube-apiserver's columns for ConfigMaps, Secrets, Leases and RuntimeClasses (pkg/printers/internalversion). */

const count = (map: Record<string, string> | undefined): number => Object.keys(map ?? {}).length;

export const configMapPrinter: Printer = {
  columns: [nameColumn, { name: 'Data', type: 'string', description: 'Data contains the configuration data.' }, ageColumn],
  cells(obj, now) {
    const cm = obj as ConfigMap;
    return [cm.metadata.name ?? '', count(cm.data) + count(cm.binaryData), age(cm.metadata.creationTimestamp, now)];
  },
};

export const secretPrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Type', type: 'string', description: 'Used to facilitate programmatic handling of secret data.' },
    { name: 'Data', type: 'string', description: 'Data contains the secret data.' },
    ageColumn,
  ],
  cells(obj, now) {
    const secret = obj as Secret;
    return [secret.metadata.name ?? '', secret.type ?? '', count(secret.data), age(secret.metadata.creationTimestamp, now)];
  },
};

export const leasePrinter: Printer = {
  columns: [nameColumn, { name: 'Holder', type: 'string', description: 'holderIdentity contains the identity of the holder of a current lease.' }, ageColumn],
  cells(obj, now) {
    const lease = obj as Lease;
    return [lease.metadata.name ?? '', lease.spec?.holderIdentity ?? '', age(lease.metadata.creationTimestamp, now)];
  },
};

export const runtimeClassPrinter: Printer = {
  columns: [nameColumn, { name: 'Handler', type: 'string', description: 'Handler is the name of the CRI handler that should be used for this runtime class.' }, ageColumn],
  cells(obj, now) {
    const rc = obj as RuntimeClass;
    return [rc.metadata.name ?? '', rc.handler ?? '', age(rc.metadata.creationTimestamp, now)];
  },
};
