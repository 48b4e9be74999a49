import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRuntimeClasses } from '../../cloud/apiserver/kinds/bootstrap.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

/** The real kubectl against the schemas the apiserver serves: explain, strict and warned apply, `kind: List`, unknown kinds. */
describe.skipIf(!hasKubectl)('kubectl with the served schemas', () => {
  let f: HttpApiFixture;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);
  const manifest = async (name: string, text: string): Promise<string> => {
    const file = join(f.dir, name);
    await writeFile(file, text);
    return file;
  };
  const typoPod = (name: string): string =>
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n  - name: app\n    image: nginx:1.27\n    comand: ["sleep"]\n  restartPolcy: Never\n`;

  beforeAll(async () => {
    f = await httpApiFixture();
    await ensureRuntimeClasses(f.api.loopback(f.token));
  });
  afterAll(async () => {
    await f?.close();
  });

  it('explains fields at every depth, from the real schemas', async () => {
    const httpGet = await kubectl('explain', 'pod.spec.containers.livenessProbe.httpGet');
    expect(httpGet.code).toBe(0);
    expect(httpGet.stdout).toContain('FIELD: httpGet <HTTPGetAction>');
    expect(httpGet.stdout).toContain('HTTPGetAction describes an action based on HTTP Get requests.');
    expect(httpGet.stdout).toContain("scheme\t<string>\n  enum: HTTP, HTTPS\n");
    expect(httpGet.stdout).toContain('port\t<string> -required-');
    const port = await kubectl('explain', 'deployment.spec.template.spec.containers.ports.containerPort');
    expect(port.stdout).toContain('FIELD: containerPort <integer>');
    expect(port.stdout).toContain("Number of port to expose on the pod's IP address.");
  });

  it('refuses unknown fields under Strict (kubectl\'s default) and warns under --validate=warn, storing without them', async () => {
    const strict = await kubectl('apply', '-f', await manifest('typo.yaml', typoPod('typo')));
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toContain('Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].comand", unknown field "spec.restartPolcy"\n');
    expect((await kubectl('get', 'pod', 'typo')).code).not.toBe(0);

    const warned = await kubectl('apply', '--validate=warn', '-f', await manifest('typo2.yaml', typoPod('typo2')));
    expect(warned).toEqual({ code: 0, stdout: 'pod/typo2 created\n', stderr: 'Warning: unknown field "spec.containers[0].comand"\nWarning: unknown field "spec.restartPolcy"\n' });
    const stored = JSON.parse((await kubectl('get', 'pod', 'typo2', '-o', 'json')).stdout) as { spec: Record<string, unknown> & { containers: Record<string, unknown>[] } };
    expect(stored.spec.restartPolcy).toBeUndefined();
    expect(stored.spec.containers[0]!.comand).toBeUndefined();
  });

  it('refuses an unsupported enum value with 422 and a wrong JSON type with 400, naming the field', async () => {
    const pulled = await kubectl('apply', '-f', await manifest('pull.yaml', typoPod('pull').replace('    comand: ["sleep"]\n  restartPolcy: Never\n', '    imagePullPolicy: Sometimes\n')));
    expect(pulled.stderr).toContain('The Pod "pull" is invalid: spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"');
    const typed = await kubectl('apply', '-f', await manifest('port.yaml', typoPod('port').replace('    comand: ["sleep"]\n  restartPolcy: Never\n', '    ports:\n    - containerPort: "eighty"\n')));
    expect(typed.stderr).toContain('Error from server (BadRequest): error when creating');
    expect(typed.stderr).toContain('Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32');
  });

  it('creates the items of a kind: List, validating them with the OpenAPI v2 definitions', async () => {
    const list = (items: string): string => `apiVersion: v1\nkind: List\nitems:\n${items}`;
    const cm = (name: string): string => `- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: ${name}\n`;
    expect(await kubectl('create', '-f', await manifest('list.yaml', list(cm('one') + cm('two'))))).toEqual({ code: 0, stdout: 'configmap/one created\nconfigmap/two created\n', stderr: '' });
    const bad = await kubectl('create', '-f', await manifest('bad-list.yaml', list(`${cm('three')}  dta:\n    a: b\n`)));
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('unknown field "dta" in io.k8s.api.core.v1.ConfigMap');
  });

  it('answers an unknown kind with no matches for kind', async () => {
    for (const apiVersion of ['example.com/v1', 'v1']) {
      const run = await kubectl('apply', '-f', await manifest('widget.yaml', `apiVersion: ${apiVersion}\nkind: Widget\nmetadata:\n  name: w\n`));
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(`no matches for kind "Widget" in version "${apiVersion}"`);
      expect(run.stderr).not.toContain('failed to download openapi');
    }
  });
});
