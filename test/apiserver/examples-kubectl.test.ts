import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../../shared/service-types.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

const examples = join(import.meta.dirname, '../../examples');
const files = (await readdir(examples)).filter((f) => f.endsWith('.yaml')).sort();

/** Every manifest in examples/ passes the API's admission as the real kubectl sends it; examples/service.yaml also for real. */
describe.skipIf(!hasKubectl)('examples/*.yaml against the API', () => {
  let f: HttpApiFixture;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);

  beforeAll(async () => {
    f = await httpApiFixture();
  });
  afterAll(async () => {
    await f?.close();
  });

  it.each(files)('kubectl apply --dry-run=server -f examples/%s', async (file) => {
    const run = await kubectl('apply', '--dry-run=server', '-f', join(examples, file));
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toMatch(/ \(server dry run\)\n$/);
  });

  it('examples/service.yaml: the Services, the Deployment and the client pod pinned to edge-2', async () => {
    expect(await kubectl('apply', '-f', join(examples, 'service.yaml'))).toEqual({
      code: 0,
      stdout: 'service/echo created\nservice/echo-nodeport created\ndeployment.apps/echo created\npod/echo-client created\n',
      stderr: '',
    });
    const svc = async (name: string): Promise<Service> => JSON.parse((await kubectl('get', 'service', name, '-o', 'json')).stdout) as Service;
    const echo = await svc('echo');
    expect(echo.spec).toMatchObject({ type: 'ClusterIP', selector: { app: 'echo' }, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] });
    expect(echo.spec?.clusterIP).toMatch(/^10\./);
    expect((await svc('echo-nodeport')).spec).toMatchObject({ type: 'NodePort', ports: [{ port: 80, targetPort: 8080, nodePort: 30080 }] });
    expect((await kubectl('get', 'pod', 'echo-client', '-o', 'jsonpath={.spec.nodeSelector}')).stdout).toBe('{"kubernetes.io/hostname":"edge-2"}');
  });
});
