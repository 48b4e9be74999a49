import { describe, expect, it } from 'vitest';
import { benchSecret, configData, podMounting, versionIn, volumeNameOf } from '../../bench/mounted-config.js';
import { mountsOf } from '../../bench/reconnect-config.js';

describe('bench ConfigMaps and Secrets', () => {
  it('holds a version and a payload whose values together are the size asked for', () => {
    const data = configData('v12', 1024);
    expect(data.version).toBe('v12');
    expect(data.version!.length + data.payload!.length).toBe(1024);
  });

  it('encodes a Secret\'s values as base64 of the same data', () => {
    const secret = benchSecret('s', 'v1', 100);
    expect(Buffer.from(secret.data!.version!, 'base64').toString()).toBe('v1');
    expect(Buffer.from(secret.data!.payload!, 'base64')).toHaveLength(98);
  });

  it('reads the version among a volume\'s files', () => {
    const file = (path: string, text: string) => ({ path, content: Buffer.from(text), mode: 0o644 });
    expect(versionIn([file('payload', 'xx'), file('version', 'v3')])).toBe('v3');
    expect(versionIn([file('payload', 'xx')])).toBeUndefined();
  });

  it('mounts each ConfigMap and Secret named, optional when asked', () => {
    const pod = podMounting('p', 'edge-1', { configMaps: ['a'], secrets: ['b'], optional: true });
    expect(pod.spec.volumes).toEqual([
      { name: volumeNameOf('a'), configMap: { name: 'a', optional: true } },
      { name: volumeNameOf('b'), secret: { secretName: 'b', optional: true } },
    ]);
    expect(pod.spec.containers[0]!.volumeMounts!.map((m) => m.name)).toEqual([volumeNameOf('a'), volumeNameOf('b')]);
  });

  it('has each reconnect pod mount two neighbouring ConfigMaps, wrapping around', () => {
    expect(mountsOf(0, 50)).toEqual(['cm-0', 'cm-1']);
    expect(mountsOf(49, 50)).toEqual(['cm-49', 'cm-0']);
    expect(mountsOf(3, 1)).toEqual(['cm-0']);
  });
});
