import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Edged } from '../../edge/edged/edged.js';
import { createMemoryCache, podsIn, type LocalCache } from '../../edge/metamanager/local-cache.js';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import type { ContainerStatus, Pod } from '../../shared/types.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { pod } from './fixtures.js';
import { nodeScript } from './process-workloads.js';
import { testNetwork } from '../support/test-network.js';

/** An HTTP server whose /healthz answers 200 once the file `ready` exists in `dir`, 503 before. */
const server = (dir: string) => `
  const fs = require('node:fs');
  require('node:http').createServer((req, res) => {
    res.statusCode = req.url === '/healthz' && fs.existsSync(${JSON.stringify(join(dir, 'ready'))}) ? 200 : 503;
    res.end();
  }).listen(Number(process.env.PORT), process.env.POD_IP);`;
/** Exits 1 once the file `sick` exists in `dir`. */
const healthCheck = (dir: string) => nodeScript(`process.exit(require('node:fs').existsSync(${JSON.stringify(join(dir, 'sick'))}) ? 1 : 0)`).command;

describe('probes against real processes', () => {
  let dir: string;
  let clock: FakeClock;
  let cache: LocalCache;
  let edged: Edged | undefined;
  let runtime: ProcessRuntime | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-process-probes-'));
    clock = new FakeClock();
    cache = createMemoryCache();
    edged = undefined;
    runtime = undefined;
  });
  afterEach(async () => {
    await edged?.stop();
    runtime?.close(); // stops listening to its children, so the reboot below does the killing
    (await ProcessRuntime.open({ network: testNetwork(), dataDir: join(dir, 'runtime'), clock, reboot: true })).close(); // kills what still runs
    await rm(dir, { recursive: true, force: true });
  });

  it('an httpGet readiness probe on a named port makes the pod Ready; a failing exec liveness probe gets it restarted', async () => {
    const port = await freePort();
    runtime = await ProcessRuntime.open({ network: testNetwork(), dataDir: join(dir, 'runtime'), clock });
    edged = new Edged({ cache, runtime, clock, timing: { ...defaultTiming, syncIntervalMs: 1000 }, logger: silentLogger, hostIP: '127.0.0.1', onStatusQueued: () => {} });
    const changes = new Subject<void>();
    edged.start(changes);
    const p: Pod = pod('web', 'u1', {
      containers: [{
        name: 'app',
        ...nodeScript(server(dir)),
        // As a kube pod does: it listens on its own address, which the probe (no host given) goes to.
        env: [{ name: 'PORT', value: String(port) }, { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
        ports: [{ name: 'http', containerPort: port }],
        // Timeouts are on the fake clock, which runs ahead of the processes here: generous ones.
        readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 1, timeoutSeconds: 60 },
        livenessProbe: { exec: { command: healthCheck(dir) }, periodSeconds: 1, failureThreshold: 2, timeoutSeconds: 60 },
      }],
    });
    cache.apply({ kind: 'Pod', name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '1' }, p);
    changes.next();
    const app = (): ContainerStatus | undefined => podsIn(cache)[0]!.status?.containerStatuses?.[0];
    const ready = () => podsIn(cache)[0]!.status?.conditions?.find((c) => c.type === 'Ready')?.status;

    await eventually(clock, () => app()?.state.running, 'the server to run', { stepMs: 100 });
    await clock.advance(3000);
    expect(ready()).toBe('False'); // 503: not ready
    await writeFile(join(dir, 'ready'), '');
    await eventually(clock, () => ready() === 'True', 'Ready from the readiness probe', { stepMs: 100 });
    expect(app()).toMatchObject({ ready: true, restartCount: 0 });

    await writeFile(join(dir, 'sick'), '');
    const killed = await eventually(clock, () => app()?.lastState.terminated, 'the unhealthy container to be killed', { stepMs: 100 });
    expect(killed).toMatchObject({ exitCode: 143, reason: 'Error' }); // SIGTERM
    await rm(join(dir, 'sick'));
    const restarted = await eventually(clock, () => app()?.restartCount === 1 && ready() === 'True' && app(), 'a restart, Ready again', { stepMs: 100, wallTimeoutMs: 20_000 });
    expect(restarted.state.running).toBeDefined();
  });
});
