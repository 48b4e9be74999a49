import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../shared/types.js';
import { waitFor } from '../support/wait.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';

describe('@kubernetes/client-node 1.4 against the HTTP apiserver', () => {
  let f: HttpApiFixture | undefined;
  afterEach(async () => {
    await f?.close();
    f = undefined;
  });

  for (const tls of [true, false]) {
    it(`lists pods and follows a Watch (${tls ? 'https with the generated CA' : 'http with skipTLSVerify'})`, async () => {
      f = await httpApiFixture({ tls });
      const kc = new KubeConfig();
      kc.loadFromFile(f.kubeconfig);
      expect(kc.getCurrentCluster()?.server).toBe(f.server.url);
      const core = kc.makeApiClient(CoreV1Api);
      const loop = f.api.loopback(f.token);
      await loop.create({ resource: 'pods', namespace: 'default' }, { metadata: { name: 'a' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } as Pod);

      const list = await core.listNamespacedPod({ namespace: 'default' });
      expect(list.items.map((p) => p.metadata?.name)).toEqual(['a']);
      expect(list.items[0]!.spec?.restartPolicy).toBe('Always');

      const seen: string[] = [];
      let ended: unknown = 'open';
      const controller = await new Watch(kc).watch(
        '/api/v1/namespaces/default/pods',
        { resourceVersion: list.metadata?.resourceVersion },
        (phase, obj: { metadata: { name: string } }) => seen.push(`${phase}:${obj.metadata.name}`),
        (err) => (ended = err),
      );
      await loop.create({ resource: 'pods', namespace: 'default' }, { metadata: { name: 'b' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } as Pod);
      await loop.delete({ resource: 'pods', namespace: 'default', name: 'a' });
      await waitFor(() => seen.length >= 2, 'watch events');
      expect(seen).toEqual(['ADDED:b', 'DELETED:a']);
      controller.abort();
      await waitFor(() => ended !== 'open', 'watch end');
    });
  }
});
