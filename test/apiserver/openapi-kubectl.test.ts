import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRuntimeClasses } from '../../cloud/apiserver/kinds/bootstrap.js';
import type { ApiRequest } from '../../cloud/apiserver/request.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  body: string;
}

/**
 * The real kubectl's validated apply, create and replace (no --validate=false) against the
 * OpenAPI v3 the apiserver generates from its resource table.
 */
describe.skipIf(!hasKubectl)('kubectl validation with OpenAPI v3', () => {
  let f: HttpApiFixture;
  const seen: Seen[] = [];
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);
  const examples = join(import.meta.dirname, '../../examples');
  const writes = (method: string, path: string): Seen[] => seen.filter((s) => s.method === method && s.path === path);

  /** A copy of an example with some text replaced, in the fixture's temp dir. */
  async function edited(example: string, ...edits: [string, string][]): Promise<string> {
    let text = await readFile(join(examples, example), 'utf8');
    for (const [from, to] of edits) {
      expect(text).toContain(from);
      text = text.replace(from, to);
    }
    const file = join(f.dir, `edited-${example}`);
    await writeFile(file, text);
    return file;
  }

  beforeAll(async () => {
    f = await httpApiFixture({
      tap: (req: ApiRequest) => seen.push({ method: req.method, path: req.path, query: req.query, contentType: req.headers['content-type'], body: req.body?.toString() ?? '' }),
    });
    await ensureRuntimeClasses(f.api.loopback(f.token)); // the examples run on runtimeClassName: sim
  });
  afterAll(async () => {
    await f?.close();
  });

  it('applies examples/pod.yaml: created, configured after an edit, then unchanged', async () => {
    expect(await kubectl('apply', '-f', join(examples, 'pod.yaml'))).toEqual({ code: 0, stdout: 'pod/hello created\n', stderr: '' });
    const [post] = writes('POST', '/api/v1/namespaces/default/pods');
    expect(post!.query.get('fieldValidation')).toBe('Strict');

    const labelled = await edited('pod.yaml', ['    app: hello\n', '    app: hello\n    tier: demo\n']);
    expect(await kubectl('apply', '-f', labelled)).toEqual({ code: 0, stdout: 'pod/hello configured\n', stderr: '' });
    const [patch] = writes('PATCH', '/api/v1/namespaces/default/pods/hello');
    expect(patch!.contentType).toBe('application/strategic-merge-patch+json');
    expect(JSON.parse(patch!.body)).toMatchObject({ metadata: { labels: { tier: 'demo' } } });

    const before = seen.length;
    expect(await kubectl('apply', '-f', labelled)).toEqual({ code: 0, stdout: 'pod/hello unchanged\n', stderr: '' });
    expect(seen.slice(before).filter((s) => s.method !== 'GET')).toEqual([]);
    const labels = await kubectl('get', 'pod', 'hello', '-o', 'jsonpath={.metadata.labels}');
    expect(JSON.parse(labels.stdout)).toEqual({ app: 'hello', tier: 'demo' });
  });

  it('applies examples/deployment.yaml, patching with the merge keys of kubectl\'s compiled-in types', async () => {
    expect(await kubectl('apply', '-f', join(examples, 'deployment.yaml'))).toEqual({ code: 0, stdout: 'deployment.apps/web created\n', stderr: '' });

    const rolled = await edited('deployment.yaml', ['replicas: 3', 'replicas: 2'], ['image: kedge.io/hello:1.0', 'image: kedge.io/hello:2.0']);
    expect(await kubectl('apply', '-f', rolled)).toEqual({ code: 0, stdout: 'deployment.apps/web configured\n', stderr: '' });
    const [patch] = writes('PATCH', '/apis/apps/v1/namespaces/default/deployments/web');
    expect(patch!.contentType).toBe('application/strategic-merge-patch+json');
    expect(patch!.query.get('fieldValidation')).toBe('Strict');
    // $setElementOrder comes from the `name` merge key of the Go types; a patch built from the
    // open OpenAPI schemas would carry the containers list alone.
    expect(JSON.parse(patch!.body)).toMatchObject({
      spec: { replicas: 2, template: { spec: { '$setElementOrder/containers': [{ name: 'web' }], containers: [{ name: 'web', image: 'kedge.io/hello:2.0' }] } } },
    });

    expect(await kubectl('apply', '-f', rolled)).toEqual({ code: 0, stdout: 'deployment.apps/web unchanged\n', stderr: '' });
    const live = await kubectl('get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image}');
    expect(live.stdout).toBe('2 kedge.io/hello:2.0');
    expect(writes('PATCH', '/apis/apps/v1/namespaces/default/deployments/web')).toHaveLength(1);
  });

  it('applies a manifest with one object of each further kind, then again unchanged', async () => {
    const manifest = join(f.dir, 'kinds.yaml');
    await writeFile(manifest, [
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kinds\n',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: kinds\ndata:\n  greeting: hello\n',
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: kinds\ndata:\n  password: aHVudGVyMg==\n',
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: kinds\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n',
      'apiVersion: v1\nkind: Node\nmetadata:\n  name: edge-applied\n',
      'apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: edge-applied\n  namespace: kinds\nspec:\n  holderIdentity: edge-applied\n',
      'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: fast\nhandler: fast\n',
    ].join('---\n'));
    const names = ['namespace/kinds', 'configmap/settings', 'secret/creds', 'service/web', 'node/edge-applied', 'lease.coordination.k8s.io/edge-applied', 'runtimeclass.node.k8s.io/fast'];
    expect(await kubectl('apply', '-f', manifest)).toEqual({ code: 0, stdout: names.map((n) => `${n} created\n`).join(''), stderr: '' });
    expect(await kubectl('apply', '-f', manifest)).toEqual({ code: 0, stdout: names.map((n) => `${n} unchanged\n`).join(''), stderr: '' });
  });

  it('creates and replaces with validation on, leaving strict field validation to the server', async () => {
    // kubectl 1.32 validates on the client only when the server's OpenAPI lacks fieldValidation;
    // here it sends fieldValidation=Strict instead, and the server refuses the unknown field.
    const manifest = join(f.dir, 'unknown-field.yaml');
    await writeFile(manifest, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: odd\nspec:\n  bogusField: 1\n  containers:\n  - name: app\n    image: nginx:1.27\n');
    const strictError = 'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.bogusField"\n';
    const refused = await kubectl('create', '-f', manifest);
    expect([refused.code, refused.stderr.endsWith(strictError)]).toEqual([1, true]);
    expect(await kubectl('create', '--validate=false', '-f', manifest)).toEqual({ code: 0, stdout: 'pod/odd created\n', stderr: '' });
    const posts = writes('POST', '/api/v1/namespaces/default/pods').filter((s) => s.body.includes('"odd"'));
    expect(posts.map((s) => [s.query.get('fieldManager'), s.query.get('fieldValidation')])).toEqual([['kubectl-create', 'Strict'], ['kubectl-create', 'Ignore']]);

    const replaced = await kubectl('replace', '-f', manifest);
    expect([replaced.code, replaced.stderr.endsWith(strictError)]).toEqual([1, true]);
    expect(writes('PUT', '/api/v1/namespaces/default/pods/odd').map((s) => s.query.get('fieldValidation'))).toEqual(['Strict']);

    const invalid = join(f.dir, 'invalid.yaml');
    await writeFile(invalid, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: no-image\nspec:\n  containers:\n  - name: app\n');
    const rejected = await kubectl('create', '-f', invalid);
    expect(rejected.code).not.toBe(0);
    expect(rejected.stderr).toBe('The Pod "no-image" is invalid: spec.containers[0].image: Required value\n');
  });
});
