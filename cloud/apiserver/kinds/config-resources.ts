import { SECRET_TYPE_OPAQUE, type ConfigMap, type Secret } from '../../../shared/config-types.js';
import type { StatusCause } from '../../../shared/errors.js';
import { invalidValue, required } from '../admission/admission.js';
import { MAX_DATA_BYTES, checkKeys, checkStringMap, dataSize, immutabilityCauses, tooLong, undecodable } from './config-data.js';
import { configMapPrinter, secretPrinter } from './config-printers.js';
import type { AdmissionContext, ResourceDef } from './registry.js';

/** core/v1 ConfigMaps and Secrets, with kube-apiserver's decoding, defaults and validation. */

export const configMapResource: ResourceDef = {
  group: '', version: 'v1', resource: 'configmaps', singular: 'configmap', kind: 'ConfigMap', namespaced: true,
  shortNames: ['cm'], categories: [], subresources: [], printer: configMapPrinter,
  strategy: {
    normalize(obj) {
      const cm = obj as ConfigMap;
      checkStringMap('ConfigMap', 'data', cm.data);
      checkStringMap('ConfigMap', 'binaryData', cm.binaryData, true);
      checkBoolean('ConfigMap', cm.immutable);
    },
    validate: (obj, ctx) => validateConfigMap(obj as ConfigMap, ctx),
  },
};

export const secretResource: ResourceDef = {
  group: '', version: 'v1', resource: 'secrets', singular: 'secret', kind: 'Secret', namespaced: true,
  shortNames: [], categories: [], subresources: [], printer: secretPrinter,
  strategy: {
    normalize: (obj) => normalizeSecret(obj as Secret),
    validate: (obj, ctx) => validateSecret(obj as Secret, ctx),
    fields: (obj) => ({ type: (obj as Secret).type ?? '' }),
  },
};

function checkBoolean(kind: string, immutable: unknown): void {
  if (immutable !== undefined && immutable !== null && typeof immutable !== 'boolean') {
    throw undecodable(kind, `json: cannot unmarshal ${typeof immutable} into Go struct field ${kind}.immutable of type bool`);
  }
}

/** v1 → stored form, as kube's conversion does: stringData wins over data for a key and is dropped; type defaults to Opaque. */
function normalizeSecret(secret: Secret): void {
  checkStringMap('Secret', 'data', secret.data, true);
  const plain = checkStringMap('Secret', 'stringData', secret.stringData);
  checkBoolean('Secret', secret.immutable);
  if (secret.type !== undefined && secret.type !== null && typeof secret.type !== 'string') {
    throw undecodable('Secret', `json: cannot unmarshal ${typeof secret.type} into Go struct field Secret.type of type v1.SecretType`);
  }
  if (plain && Object.keys(plain).length > 0) {
    const encoded = Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, Buffer.from(v ?? '', 'utf8').toString('base64')]));
    secret.data = { ...secret.data, ...encoded };
  }
  delete secret.stringData;
  if (!secret.type) secret.type = SECRET_TYPE_OPAQUE;
}

function validateConfigMap(cm: ConfigMap, ctx: AdmissionContext): StatusCause[] {
  const causes = [...checkKeys('data', cm.data), ...checkKeys('binaryData', cm.binaryData)];
  for (const key of Object.keys(cm.data ?? {})) {
    if (cm.binaryData && Object.hasOwn(cm.binaryData, key)) causes.push(invalidValue(`data[${key}]`, key, 'duplicate of key present in binaryData'));
  }
  if (dataSize(cm.data, false) + dataSize(cm.binaryData, true) > MAX_DATA_BYTES) causes.push(tooLong(''));
  if (ctx.operation === 'update') causes.push(...immutabilityCauses(cm, ctx.old as ConfigMap, ['data', 'binaryData']));
  return causes;
}

function validateSecret(secret: Secret, ctx: AdmissionContext): StatusCause[] {
  const causes = [...checkKeys('data', secret.data)];
  if (dataSize(secret.data, true) > MAX_DATA_BYTES) causes.push(tooLong('data'));
  causes.push(...typeRequirements(secret));
  if (ctx.operation === 'update') {
    const old = ctx.old as Secret;
    if ((old.type ?? '') !== (secret.type ?? '')) causes.push(invalidValue('type', secret.type, 'field is immutable'));
    causes.push(...immutabilityCauses(secret, old, ['data']));
  }
  return causes;
}

const redacted = '<secret contents redacted>';

/** The keys (or annotation) each well-known Secret type must have, as ValidateSecret checks them. */
function typeRequirements(secret: Secret): StatusCause[] {
  const data = secret.data ?? {};
  const has = (key: string): boolean => Object.hasOwn(data, key);
  switch (secret.type) {
    case 'kubernetes.io/service-account-token':
      return secret.metadata.annotations?.['kubernetes.io/service-account.name'] ? [] : [required('metadata.annotations[kubernetes.io/service-account.name]')];
    case 'kubernetes.io/dockercfg':
      return jsonKey(data, '.dockercfg');
    case 'kubernetes.io/dockerconfigjson':
      return jsonKey(data, '.dockerconfigjson');
    case 'kubernetes.io/basic-auth':
      return has('username') || has('password') ? [] : [required('data[username]'), required('data[password]')];
    case 'kubernetes.io/ssh-auth':
      return data['ssh-privatekey'] ? [] : [required('data[ssh-privatekey]')];
    case 'kubernetes.io/tls':
      return ['tls.crt', 'tls.key'].filter((k) => !has(k)).map((k) => required(`data[${k}]`));
    default:
      return [];
  }
}

/** The key must be there and hold a JSON object (docker config secrets). */
function jsonKey(data: Record<string, string>, key: string): StatusCause[] {
  if (!Object.hasOwn(data, key)) return [required(`data[${key}]`)];
  try {
    const value = JSON.parse(Buffer.from(data[key] ?? '', 'base64').toString('utf8')) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return [];
    return [invalidValue(`data[${key}]`, redacted, 'json: cannot unmarshal into a map')];
  } catch (err) {
    return [invalidValue(`data[${key}]`, redacted, (err as Error).message)];
  }
}
