import type { StatusCause } from '../../../shared/errors.js';
import { required } from '../admission/admission.js';
import { dns1123LabelErrors, duplicate, forbidden, invalidCauses, notFound, requiredBecause } from '../admission/name-formats.js';

/** ValidateVolumes and ValidateVolumeMounts (kube 1.32 pkg/apis/core/validation), with kube's field paths and words. */

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const itemsOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The volume sources in the order kube's validateVolumeSource tries them: [JSON field, the
 * path kube names when it is one source too many (its own spelling, typos included)].
 */
const SOURCES: [string, string][] = [
  ['emptyDir', 'emptyDir'], ['hostPath', 'hostPath'], ['gitRepo', 'gitRepo'], ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'], ['secret', 'secret'], ['nfs', 'nfs'], ['iscsi', 'iscsi'], ['glusterfs', 'glusterfs'],
  ['flocker', 'flocker'], ['persistentVolumeClaim', 'persistentVolumeClaim'], ['rbd', 'rbd'], ['cinder', 'cinder'], ['cephfs', 'cephFS'],
  ['quobyte', 'quobyte'], ['downwardAPI', 'downwarAPI'], ['fc', 'fc'], ['flexVolume', 'flexVolume'], ['configMap', 'configMap'],
  ['azureFile', 'azureFile'], ['vsphereVolume', 'vsphereVolume'], ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'], ['azureDisk', 'azureDisk'], ['storageos', 'storageos'], ['projected', 'projected'],
  ['scaleIO', 'scaleIO'], ['csi', 'csi'], ['ephemeral', 'ephemeral'], ['image', 'image'],
];

/** The one field each source kedge's edges mount must name (kube: Required). */
const SOURCE_REQUIRED: Record<string, string> = { hostPath: 'path', secret: 'secretName', configMap: 'name', persistentVolumeClaim: 'claimName' };

/** The pod's valid volumes (the names mounts may use) and the causes. A volume with a problem is not one mounts can name. */
export function validateVolumes(volumes: unknown, at: string): { names: Set<string>; causes: StatusCause[] } {
  const names = new Set<string>();
  const causes: StatusCause[] = [];
  itemsOf(volumes).forEach((v, i) => {
    const vol = isMap(v) ? v : {};
    const name = text(vol.name);
    const field = `${at}[${i}]`;
    const found = volumeSourceCauses(vol, field);
    if (name === '') found.push(required(`${field}.name`));
    else found.push(...invalidCauses(`${field}.name`, name, dns1123LabelErrors(name)));
    if (names.has(name)) found.push(duplicate(`${field}.name`, name));
    if (found.length === 0) names.add(name);
    causes.push(...found);
  });
  return { names, causes };
}

function volumeSourceCauses(vol: Json, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let count = 0;
  for (const [key, shown] of SOURCES) {
    const source = vol[key];
    if (source === undefined || source === null) continue;
    if (count > 0) {
      causes.push(forbidden(`${field}.${shown}`, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    const needed = SOURCE_REQUIRED[key];
    if (needed && isMap(source) && text(source[needed]) === '') causes.push(required(`${field}.${key}.${needed}`));
  }
  return count === 0 ? [...causes, requiredBecause(field, 'must specify a volume type')] : causes;
}

/** A container's volumeMounts: each names a valid volume of the pod and has a mountPath of its own. */
export function validateVolumeMounts(mounts: unknown, volumes: Set<string>, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const paths = new Set<string>();
  itemsOf(mounts).forEach((m, i) => {
    const mount = isMap(m) ? m : {};
    const field = `${at}[${i}]`;
    const [name, path] = [text(mount.name), text(mount.mountPath)];
    if (name === '') causes.push(required(`${field}.name`));
    if (!volumes.has(name)) causes.push(notFound(`${field}.name`, name));
    if (path === '') causes.push(required(`${field}.mountPath`));
    if (paths.has(path)) causes.push(...invalidCauses(`${field}.mountPath`, path, ['must be unique']));
    paths.add(path);
  });
  return causes;
}
