import { describe, expect, it } from 'vitest';
import { decodeKubeProtobuf } from '../../cloud/apiserver/protobuf/decode.js';
import { decodeObject } from '../../cloud/apiserver/http/request-body.js';
import { KedgeError } from '../../shared/errors.js';

/**
 * Request bodies captured from the real kubectl v1.32.4 (a throwaway server that stored the
 * body of each POST; Content-Type application/vnd.kubernetes.protobuf), base64-encoded.
 */
const captured = {
  'create namespace foo': 'azhzAAoPCgJ2MRIJTmFtZXNwYWNlEhsKEwoDZm9vEgAaACIAKgAyADgAQgASABoCCgAaACIA',
  'create configmap x --from-literal=a=b': 'azhzAAoPCgJ2MRIJQ29uZmlnTWFwEhsKEQoBeBIAGgAiACoAMgA4AEIAEgYKAWESAWIaACIA',
  'create secret generic s --from-literal=k=v': 'azhzAAoMCgJ2MRIGU2VjcmV0Eh0KEQoBcxIAGgAiACoAMgA4AEIAEgYKAWsSAXYaABoAIgA=',
  'create deployment d --image=kedge.io/hello:1.0':
    'azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50ErEBChsKAWQSABoAIgAqADIAOABCAFoICgNhcHASAWQSgwEIARIKCggKA2FwcBIBZBprChoKABIAGgAiACoAMgA4AEIAWggKA2FwcBIBZBJNEi8KBWhlbGxvEhJrZWRnZS5pby9oZWxsbzoxLjAqAEIAagByAIABAIgBAJABAKIBABoAMgBCAEoAUgBYAGAAaACCAQCKAQCaAQDCAQAiAgoAKAA4ABoMCAAQABgAIAAoADgAGgAiAA==',
  'create service clusterip s --tcp=80:8080':
    'azhzAAoNCgJ2MRIHU2VydmljZRJjChsKAXMSABoAIgAqADIAOABCAFoICgNhcHASAXMSQAobCgc4MC04MDgwEgNUQ1AYUCIHCAAQkD8aACgAEggKA2FwcBIBcxoAIglDbHVzdGVySVA6AEIAUgBaAGAAaAAaAgoAGgAiAA==',
  'create deployment web --image=kedge.io/hello:1.0 --replicas=0 --port=8080 -- sleep 10':
    'azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50EtIBCh8KA3dlYhIAGgAiACoAMgA4AEIAWgoKA2FwcBIDd2ViEqABCAASDAoKCgNhcHASA3dlYhqFAQocCgASABoAIgAqADIAOABCAFoKCgNhcHASA3dlYhJlEkcKBWhlbGxvEhJrZWRnZS5pby9oZWxsbzoxLjAaBXNsZWVwGgIxMCoAMgsKABAAGJA/IgAqAEIAagByAIABAIgBAJABAKIBABoAMgBCAEoAUgBYAGAAaACCAQCKAQCaAQDCAQAiAgoAKAA4ABoMCAAQABgAIAAoADgAGgAiAA==',
  'create service nodeport np --tcp=80:http --node-port=30080':
    'azhzAAoNCgJ2MRIHU2VydmljZRJqCh0KAm5wEgAaACIAKgAyADgAQgBaCQoDYXBwEgJucBJFCiAKBzgwLWh0dHASA1RDUBhQIgoIARAAGgRodHRwKIDrARIJCgNhcHASAm5wGgAiCE5vZGVQb3J0OgBCAFIAWgBgAGgAGgIKABoAIgA=',
  'create configmap bin --from-file=blob=<ff 00 01 "binary">': 'azhzAAoPCgJ2MRIJQ29uZmlnTWFwEigKEwoDYmluEgAaACIAKgAyADgAQgAaEQoEYmxvYhIJ/wABYmluYXJ5GgAiAA==',
  'create secret docker-registry reg --docker-username=u --docker-password=p --docker-server=r.example':
    'azhzAAoMCgJ2MRIGU2VjcmV0EpEBChMKA3JlZxIAGgAiACoAMgA4AEIAEloKES5kb2NrZXJjb25maWdqc29uEkV7ImF1dGhzIjp7InIuZXhhbXBsZSI6eyJ1c2VybmFtZSI6InUiLCJwYXNzd29yZCI6InAiLCJhdXRoIjoiZFRwdyJ9fX0aHmt1YmVybmV0ZXMuaW8vZG9ja2VyY29uZmlnanNvbhoAIgA=',
} as const;

const decode = (command: keyof typeof captured): Record<string, unknown> => decodeKubeProtobuf(Buffer.from(captured[command], 'base64'));

// A little encoder for hand-made bodies.
const varint = (n: number | bigint): number[] => {
  const v = BigInt(n);
  return v < 0x80n ? [Number(v)] : [Number(v & 0x7fn) | 0x80, ...varint(v >> 7n)];
};
const ld = (field: number, payload: number[] | string): number[] => {
  const b = typeof payload === 'string' ? [...Buffer.from(payload)] : payload;
  return [...varint((field << 3) | 2), ...varint(b.length), ...b];
};
const num = (field: number, n: number | bigint): number[] => [...varint(field << 3), ...varint(n)];
const envelope = (apiVersion: string, kind: string, raw: number[], encoding = ''): Buffer =>
  Buffer.from([0x6b, 0x38, 0x73, 0x00, ...ld(1, [...ld(1, apiVersion), ...ld(2, kind)]), ...ld(2, raw), ...ld(3, encoding), ...ld(4, '')]);

describe('Kubernetes protobuf request bodies from kubectl', () => {
  it('decodes the generators\' objects, omitting empty fields as Go\'s JSON does', () => {
    expect(decode('create namespace foo')).toEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'foo' } });
    expect(decode('create configmap x --from-literal=a=b')).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } });
    expect(decode('create secret generic s --from-literal=k=v')).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { k: 'dg==' } });
    expect(decode('create deployment d --image=kedge.io/hello:1.0')).toEqual({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', labels: { app: 'd' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'd' } },
        template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'hello', image: 'kedge.io/hello:1.0' }] } },
      },
    });
    expect(decode('create service clusterip s --tcp=80:8080')).toEqual({
      apiVersion: 'v1', kind: 'Service', metadata: { name: 's', labels: { app: 's' } },
      spec: { ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 's' }, type: 'ClusterIP' },
    });
  });

  it('keeps a pointer field\'s zero (replicas: 0) and reads command and ports', () => {
    const spec = decode('create deployment web --image=kedge.io/hello:1.0 --replicas=0 --port=8080 -- sleep 10').spec as Record<string, unknown>;
    expect(spec.replicas).toBe(0);
    expect(spec.template).toEqual({
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'hello', image: 'kedge.io/hello:1.0', command: ['sleep', '10'], ports: [{ containerPort: 8080 }] }] },
    });
  });

  it('reads a named target port and a node port', () => {
    expect(decode('create service nodeport np --tcp=80:http --node-port=30080').spec).toEqual({
      ports: [{ name: '80-http', protocol: 'TCP', port: 80, targetPort: 'http', nodePort: 30080 }],
      selector: { app: 'np' },
      type: 'NodePort',
    });
  });

  it('base64-encodes bytes: binaryData and Secret data, with the secret type', () => {
    expect(decode('create configmap bin --from-file=blob=<ff 00 01 "binary">').binaryData).toEqual({ blob: Buffer.from([0xff, 0x00, 0x01, ...Buffer.from('binary')]).toString('base64') });
    const secret = decode('create secret docker-registry reg --docker-username=u --docker-password=p --docker-server=r.example');
    expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
    const config = JSON.parse(Buffer.from((secret.data as Record<string, string>)['.dockerconfigjson']!, 'base64').toString()) as unknown;
    expect(config).toEqual({ auths: { 'r.example': { username: 'u', password: 'p', auth: 'dTpw' } } });
  });

  it('decodes through decodeObject when the Content-Type says protobuf', () => {
    const req = { method: 'POST', path: '/api/v1/namespaces', query: new URLSearchParams(), headers: { 'content-type': 'application/vnd.kubernetes.protobuf' }, body: Buffer.from(captured['create namespace foo'], 'base64') };
    expect(decodeObject(req)).toEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'foo' } });
  });
});

describe('hand-made protobuf bodies', () => {
  it('keeps a pointer bool set to false, reads timestamps and skips unknown fields', () => {
    const metadata = [...ld(1, 'cm'), ...ld(8, num(1, 1_700_000_000)), ...ld(17, ld(1, 'kubectl')), ...ld(99, 'future')];
    const body = envelope('v1', 'ConfigMap', [...ld(1, metadata), ...num(4, 0), ...ld(2, [...ld(1, 'empty')])]);
    expect(decodeKubeProtobuf(body)).toEqual({
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: 'cm', creationTimestamp: '2023-11-14T22:13:20Z' },
      immutable: false,
      data: { empty: '' },
    });
  });

  it('answers 415 naming a kind it has no schema for', () => {
    const body = envelope('policy/v1', 'Eviction', ld(1, ld(1, 'p')));
    expect(() => decodeKubeProtobuf(body)).toThrow(expect.objectContaining({ code: 'UnsupportedMediaType', message: expect.stringContaining('kind Eviction (apiVersion policy/v1)') }));
    const req = { method: 'POST', path: '/x', query: new URLSearchParams(), headers: { 'content-type': 'application/vnd.kubernetes.protobuf' }, body };
    expect(() => decodeObject(req)).toThrow(KedgeError);
  });

  it('answers 415 for an encoded envelope and 400 for a body that is not one', () => {
    expect(() => decodeKubeProtobuf(envelope('v1', 'Namespace', [], 'gzip'))).toThrow(expect.objectContaining({ code: 'UnsupportedMediaType', message: expect.stringContaining('content encoding "gzip"') }));
    expect(() => decodeKubeProtobuf(Buffer.from('{"kind":"Namespace"}'))).toThrow(expect.objectContaining({ code: 'BadRequest', message: expect.stringContaining('magic number') }));
    const truncated = envelope('v1', 'Namespace', ld(1, ld(1, 'foo'))).subarray(0, 20);
    expect(() => decodeKubeProtobuf(truncated)).toThrow(expect.objectContaining({ code: 'BadRequest', message: expect.stringContaining('malformed') }));
    const wrongWire = envelope('v1', 'Namespace', num(1, 5)); // metadata as a varint
    expect(() => decodeKubeProtobuf(wrongWire)).toThrow(expect.objectContaining({ code: 'BadRequest', message: expect.stringContaining('field 1: expected a length-delimited value') }));
    const farFuture = envelope('v1', 'Namespace', ld(1, ld(8, num(1, 10 ** 15))));
    expect(() => decodeKubeProtobuf(farFuture)).toThrow(expect.objectContaining({ code: 'BadRequest', message: expect.stringContaining('timestamp out of range') }));
  });

  it('answers every truncation and one-byte corruption of a real body with an object or a KedgeError', () => {
    const body = Buffer.from(captured['create deployment d --image=kedge.io/hello:1.0'], 'base64');
    const attempt = (b: Buffer): void => {
      try {
        decodeKubeProtobuf(b);
      } catch (err) {
        expect(err).toBeInstanceOf(KedgeError);
      }
    };
    for (let n = 0; n < body.length; n++) attempt(body.subarray(0, n));
    for (let i = 4; i < body.length; i++) {
      for (const flip of [0x01, 0x80, 0xff]) {
        const mutated = Buffer.from(body);
        mutated[i]! ^= flip;
        attempt(mutated);
      }
    }
  });
});
