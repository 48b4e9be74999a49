import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

/** The real kubectl meets kube's pod spec validation: every cause in one answer, each naming its field. */
describe('kubectl apply of a pod kube would refuse', () => {
  let f: HttpApiFixture;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);

  beforeAll(async () => {
    if (!hasKubectl) throw new Error('kubectl (v1.32) is not on PATH: this test drives the real kubectl');
    f = await httpApiFixture();
  });
  afterAll(async () => {
    await f?.close();
  });

  it('prints kube\'s error for a bad port name and a mount of a missing volume, and stores nothing', async () => {
    const file = join(f.dir, 'bad-pod.yaml');
    await writeFile(
      file,
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\nspec:\n  containers:\n  - name: app\n    image: nginx:1.27\n    ports:\n    - name: http_port\n      containerPort: 80\n    volumeMounts:\n    - name: data\n      mountPath: /data\n',
    );
    const r = await kubectl('apply', '-f', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'The Pod "bad" is invalid: \n' +
        '* spec.containers[0].ports[0].name: Invalid value: "http_port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)\n' +
        '* spec.containers[0].volumeMounts[0].name: Not found: "data"\n',
    );
    expect((await kubectl('get', 'pod', 'bad')).stderr).toContain('pods "bad" not found');
  });
});
