import { describe, expect, it } from 'vitest';
import type { StatusCause } from '../../shared/errors.js';
import { validatePodSpec } from '../../cloud/apiserver/kinds/pod-spec-validation.js';

/** ValidatePodSpec as kube 1.32 words it: each rule, its field path and its message. */

const LABEL_REGEX = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const PORT_RANGE = 'must be between 1 and 65535, inclusive';

const app = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name: 'app', image: 'nginx:1.27', ...extra });
const causesOf = (spec: Record<string, unknown>, isPod = true): StatusCause[] => validatePodSpec(spec, 'spec', { isPod });
const shown = (causes: StatusCause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);

describe('containers and init containers', () => {
  it('wants DNS-1123 label names, unique across containers and init containers', () => {
    const causes = causesOf({ containers: [app({ name: 'Web' }), app()], initContainers: [app(), app({ name: 'my.init' })] });
    expect(shown(causes)).toEqual([
      `spec.containers[0].name: Invalid value: "Web": ${LABEL_REGEX}`,
      'spec.initContainers[0].name: Duplicate value: "app"',
      'spec.initContainers[1].name: Invalid value: "my.init": must not contain dots',
    ]);
    expect(causes[1]?.reason).toBe('FieldValueDuplicate');
  });

  it('wants containers, and an image in each', () => {
    expect(shown(causesOf({ containers: [] }))).toEqual(['spec.containers: Required value']);
    expect(shown(causesOf({ containers: [app()], initContainers: [app({ name: 'init', image: '' })] }))).toEqual(['spec.initContainers[0].image: Required value']);
  });

  it("refuses a pod's image with spaces at either end, not a template's", () => {
    const spec = { containers: [app({ image: ' nginx ' })] };
    expect(shown(causesOf(spec))).toEqual(['spec.containers[0].image: Invalid value: " nginx ": must not have leading or trailing whitespace']);
    expect(causesOf(spec, false)).toEqual([]);
  });

  it('keeps probes and lifecycle to restartable init containers, and restartPolicy to init containers', () => {
    const causes = causesOf({
      containers: [app({ restartPolicy: 'Always' })],
      initContainers: [app({ name: 'init', livenessProbe: { exec: { command: ['true'] } } }), app({ name: 'side', restartPolicy: 'Never' })],
    });
    expect(shown(causes)).toEqual([
      'spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers',
      'spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
      'spec.initContainers[1].restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ]);
  });
});

describe('ports', () => {
  it('wants containerPort and hostPort in 1–65535', () => {
    const causes = causesOf({ containers: [app({ ports: [{ containerPort: 70000 }, { containerPort: 80, hostPort: -1 }, { hostPort: 8080 }] })] });
    expect(shown(causes)).toEqual([
      `spec.containers[0].ports[0].containerPort: Invalid value: 70000: ${PORT_RANGE}`,
      `spec.containers[0].ports[1].hostPort: Invalid value: -1: ${PORT_RANGE}`,
      'spec.containers[0].ports[2].containerPort: Required value',
    ]);
  });

  it('wants port names to be IANA_SVC_NAMEs, unique in the container', () => {
    const ports = [{ name: 'Http_Port-Number1', containerPort: 80 }, { name: '8080', containerPort: 81 }, { name: '-a--b', containerPort: 82 }, { name: 'web', containerPort: 83 }, { name: 'web', containerPort: 84 }];
    expect(shown(causesOf({ containers: [app({ ports })] }))).toEqual([
      'spec.containers[0].ports[0].name: Invalid value: "Http_Port-Number1": must be no more than 15 characters',
      'spec.containers[0].ports[0].name: Invalid value: "Http_Port-Number1": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.containers[0].ports[1].name: Invalid value: "8080": must contain at least one letter (a-z)',
      'spec.containers[0].ports[2].name: Invalid value: "-a--b": must not contain consecutive hyphens',
      'spec.containers[0].ports[2].name: Invalid value: "-a--b": must not begin or end with a hyphen',
      'spec.containers[0].ports[4].name: Duplicate value: "web"',
    ]);
  });

  it('refuses one protocol/hostIP/hostPort taken twice in the containers', () => {
    const causes = causesOf({ containers: [app({ ports: [{ containerPort: 80, hostPort: 8080 }] }), app({ name: 'b', ports: [{ containerPort: 81, hostPort: 8080 }] })] });
    expect(shown(causes)).toEqual(['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"']);
  });
});

describe('volumes and volumeMounts', () => {
  it('wants DNS-1123 label names, unique, each with exactly one source', () => {
    const volumes = [{ name: 'data', emptyDir: {}, hostPath: { path: '/x' } }, { name: 'cfg' }, { name: 'ok', emptyDir: {} }, { name: 'ok', emptyDir: {} }, { name: 'Bad', emptyDir: {} }];
    const causes = causesOf({ containers: [app()], volumes });
    expect(shown(causes)).toEqual([
      'spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type',
      'spec.volumes[1]: Required value: must specify a volume type',
      'spec.volumes[3].name: Duplicate value: "ok"',
      `spec.volumes[4].name: Invalid value: "Bad": ${LABEL_REGEX}`,
    ]);
    expect(causes.map((c) => c.reason)).toEqual(['FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate', 'FieldValueInvalid']);
  });

  it('wants the field each source needs named (a configMap its name)', () => {
    expect(shown(causesOf({ containers: [app()], volumes: [{ name: 'cfg', configMap: {} }] }))).toEqual(['spec.volumes[0].configMap.name: Required value']);
  });

  it('wants each mount to name a volume of the pod, with a mountPath unique in its container', () => {
    const volumeMounts = [{ name: 'data', mountPath: '/data' }, { name: 'cache', mountPath: '/data' }, { name: 'data', mountPath: '' }];
    const causes = causesOf({ containers: [app({ volumeMounts })], volumes: [{ name: 'data', emptyDir: {} }] });
    expect(shown(causes)).toEqual([
      'spec.containers[0].volumeMounts[1].name: Not found: "cache"',
      'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/data": must be unique',
      'spec.containers[0].volumeMounts[2].mountPath: Required value',
    ]);
    expect(causes[0]?.reason).toBe('FieldValueNotFound');
  });
});

describe('env and envFrom', () => {
  it("takes kube 1.32's relaxed env var names: printable ASCII but '='", () => {
    const env = [{ name: '1st.VAR-name', value: 'ok' }, { name: 'A=B', value: 'x' }, { name: 'ÄÖ', value: 'x' }, { name: '' }];
    expect(shown(causesOf({ containers: [app({ env })] }))).toEqual([
      `spec.containers[0].env[1].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
      `spec.containers[0].env[2].name: Invalid value: "ÄÖ": a valid environment variable name must consist only of printable ASCII characters other than '='`,
      'spec.containers[0].env[3].name: Required value',
    ]);
  });

  it('wants a valueFrom with exactly one source and no value beside it', () => {
    const ref = { name: 'cm', key: 'k' };
    const env = [{ name: 'A', valueFrom: {} }, { name: 'B', valueFrom: { configMapKeyRef: ref, secretKeyRef: ref } }, { name: 'C', value: 'x', valueFrom: { configMapKeyRef: ref } }];
    expect(shown(causesOf({ containers: [app({ env })] }))).toEqual([
      'spec.containers[0].env[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
      'spec.containers[0].env[1].valueFrom: Invalid value: "": may not have more than one field specified at a time',
      'spec.containers[0].env[2].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
    ]);
  });

  it('wants each envFrom to name one of configMapRef and secretRef', () => {
    expect(shown(causesOf({ containers: [app({ envFrom: [{ prefix: 'P_' }] })] }))).toEqual(['spec.containers[0].envFrom: Invalid value: "": must specify one of: `configMapRef` or `secretRef`']);
  });
});

describe('probes and lifecycle handlers', () => {
  it('checks numbered and named ports, as kube reads an int-or-string', () => {
    const containers = [
      app({
        livenessProbe: { httpGet: { path: '/', port: 0 } },
        readinessProbe: { tcpSocket: { port: '8080' } },
        startupProbe: { grpc: { port: 70000 } },
        lifecycle: { preStop: { httpGet: { path: '/', port: 'Web' } } },
      }),
    ];
    expect(shown(causesOf({ containers }))).toEqual([
      'spec.containers[0].lifecycle.preStop.httpGet.port: Invalid value: "Web": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      `spec.containers[0].livenessProbe.httpGet.port: Invalid value: 0: ${PORT_RANGE}`,
      'spec.containers[0].readinessProbe.tcpSocket.port: Invalid value: "8080": must contain at least one letter (a-z)',
      `spec.containers[0].startupProbe.grpc.port: Invalid value: 70000: ${PORT_RANGE}`,
    ]);
  });

  it('wants exactly one handler, and the thresholds kube allows', () => {
    const containers = [app({ livenessProbe: { periodSeconds: -1, successThreshold: 2 }, readinessProbe: { exec: { command: [] }, tcpSocket: { port: 80 }, terminationGracePeriodSeconds: 5 } })];
    expect(shown(causesOf({ containers }))).toEqual([
      'spec.containers[0].livenessProbe: Required value: must specify a handler type',
      'spec.containers[0].livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0',
      'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
      'spec.containers[0].readinessProbe.exec.command: Required value',
      'spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type',
      'spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes',
    ]);
  });
});

describe('pod-level fields', () => {
  it('checks hostname, subdomain, nodeSelector and activeDeadlineSeconds', () => {
    const causes = causesOf({ containers: [app()], hostname: 'Web_1', subdomain: 'a.b', nodeSelector: { 'kedge.io/zone!': 'a b' }, activeDeadlineSeconds: 0 });
    expect(shown(causes)).toEqual([
      `spec.nodeSelector: Invalid value: "kedge.io/zone!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `spec.nodeSelector: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      'spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive',
      `spec.hostname: Invalid value: "Web_1": ${LABEL_REGEX}`,
      'spec.subdomain: Invalid value: "a.b": must not contain dots',
    ]);
  });

  it('accepts a pod that uses every part well', () => {
    const spec = {
      volumes: [{ name: 'data', emptyDir: {} }, { name: 'cfg', configMap: { name: 'cfg' } }],
      initContainers: [app({ name: 'init' }), app({ name: 'side', restartPolicy: 'Always', readinessProbe: { tcpSocket: { port: 'web' } } })],
      containers: [app({ ports: [{ name: 'web', containerPort: 80, hostPort: 8080 }], env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }], volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'cfg', mountPath: '/cfg' }], livenessProbe: { httpGet: { path: '/', port: 'web' } } })],
      hostname: 'web-0',
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      activeDeadlineSeconds: 60,
    };
    expect(causesOf(spec)).toEqual([]);
  });
});
