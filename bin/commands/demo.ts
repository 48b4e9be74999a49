import { resolve } from 'node:path';
import { Command } from 'commander';
import { DEFAULT_DEMO_DATA_DIR, DEMO_COMMAND, kedgeCommandFor } from '../../sim/demo-file.js';
import { realClock } from '../../shared/clock.js';
import { childLineWriter, logArgs, logSettings, withLogOptions } from '../log-options.js';
import { numberIn, port, positive } from '../options.js';
import { ensurePortsFree, type PortOption } from '../port-options.js';
import { runUntilStopped } from '../process-lifetime.js';
import { demoEdgeCommands } from './demo-edges.js';
import { demoEtcdCommand, etcdLines } from './demo-etcd.js';

interface DemoPorts {
  nodes: number;
  apiPort: number;
  mqttPort: number;
  localApiBasePort: number;
}

/** The ports the demo's cloud and edges will listen on, with the demo's options that set them. */
function demoPorts(o: DemoPorts): PortOption[] {
  const host = '127.0.0.1';
  const edges = Array.from({ length: o.localApiBasePort === 0 ? 0 : o.nodes }, (_, i) => ({
    port: o.localApiBasePort + i + 1,
    host,
    option: '--local-api-base-port',
    what: `edge-${i + 1}'s local API, --local-api-base-port + ${i + 1}`,
  }));
  return [{ port: o.apiPort, host, option: '--api-port', what: 'the API' }, { port: o.mqttPort, host, option: '--mqtt-port', what: 'the MQTT broker' }, ...edges];
}

/** `kedge demo --clouds N`: several clouds on an etcd of the demo's own, of `--etcd` members where that option exists (sim/demo-clouds.ts). */
async function runCloudsDemo(o: Record<string, unknown>, settings: ReturnType<typeof logSettings>): Promise<void> {
  const { startCloudsDemo, cloudsDemoBanner } = await import('../../sim/demo-clouds.js');
  const { leadingCloud } = await import('../../sim/clouds/leaders.js');
  const { lockDataDir } = await import('../../shared/data-dir-lock.js');
  const dataDir = o.dataDir as string;
  await runUntilStopped('demo', async (logger) => {
    const lock = await lockDataDir(dataDir, { command: DEMO_COMMAND, logger });
    try {
      const demo = await startCloudsDemo({
        clouds: o.clouds as number, nodes: o.nodes as number, etcdMembers: typeof o.etcd === 'number' ? o.etcd : 1, dataDir, timeScale: o.timeScale as number, clock: realClock, logger,
        onLine: childLineWriter(settings, logger, (line) => process.stderr.write(line + '\n')),
      });
      process.stdout.write(cloudsDemoBanner(demo, dataDir, leadingCloud(await demo.leaders()) ?? 'cloud-1'));
      return { stop: () => demo.close().finally(() => lock.release()) };
    } catch (err) {
      await lock.release();
      throw err;
    }
  }, settings);
}

export function demoCommand(): Command {
  const demo = withLogOptions(new Command('demo')
    .description('Run a cloud and N edge processes on this machine, in the foreground; Ctrl-C stops them all, and their process pods.')
    // `kedge demo crash edge-1 --data-dir D`: the --data-dir after a verb is the verb's.
    .enablePositionalOptions()
    .option('--nodes <n>', 'number of edges (edge-1 … edge-N)', numberIn(1, 100), 3)
    .option('--data-dir <dir>', 'data of the cloud and every edge', DEFAULT_DEMO_DATA_DIR)
    .option('--api-port <port>', 'API port', port, 8080)
    .option('--mqtt-port <port>', 'MQTT broker port', port, 1883)
    .option('--local-api-base-port <port>', "edge i's local API listens on this port + i (0: free ports)", port, 10550)
    .option('--etcd <n>', "keep the cluster in a real etcd cluster of n members, 1 to 7 (Debian's /usr/bin/etcd, each its own process, data in <data-dir>/etcd); default: the embedded store", numberIn(1, 7))
    .option('--time-scale <n>', 'divide every protocol and control interval by n', positive, 1)
    .option('--keepalive <seconds>', "the edges' MQTT keepalive (default 2: a pulled cable shows within 3 s; on a shaped link give 10, as kedge edge's, docs/protocol.md \"Tuning for weak links\")", numberIn(1, 600))
    .option('--keep-pods', "leave the edges' process pods running when the demo stops (by default they stop with it, as in a node shutdown)")
    .option('--clouds <n>', 'run n clouds on one etcd the demo starts, on free ports (edges given every broker, no link proxies; docs/operations.md "Several clouds")', numberIn(1, 5), 1))
    .action(async (o) => {
      // Loaded on use, so that light commands (kedge link) start fast.
      const { runningDemoError } = await import('../running-demo.js');
      const running = await runningDemoError(o.dataDir);
      if (running) {
        process.stderr.write(running);
        process.exitCode = 1;
        return;
      }
      const settings = logSettings(o);
      if (o.clouds > 1) return runCloudsDemo(o, settings);
      const { startDemo } = await import('../../sim/demo.js');
      const { lockDataDir } = await import('../../shared/data-dir-lock.js');
      await runUntilStopped('demo', async (logger) => {
        // The data dir first (whoever holds it is named), then the ports, before any process starts.
        const lock = await lockDataDir(o.dataDir, { command: DEMO_COMMAND, logger });
        await ensurePortsFree(demoPorts(o)).catch(async (err: unknown) => {
          await lock.release();
          throw err;
        });
        const demo = await startDemo({
          lock,
          nodes: o.nodes,
          dataDir: o.dataDir,
          apiPort: o.apiPort,
          mqttPort: o.mqttPort,
          localApiBasePort: o.localApiBasePort,
          timeScale: o.timeScale,
          keepPods: Boolean(o.keepPods),
          ...(o.keepalive !== undefined && { keepaliveSeconds: o.keepalive as number }),
          ...(o.etcd !== undefined && { etcd: o.etcd as number }),
          clock: realClock,
          logger,
          roleArgs: logArgs(settings),
          onLine: childLineWriter(settings, logger, (line) => process.stderr.write(line + '\n')),
        });
        const kc = demo.kubeconfigPath;
        process.stdout.write(
          [
            `kedge demo ready: 1 cloud, ${o.nodes} edges (each behind its own link proxy)`,
            `  Data dir: ${resolve(o.dataDir)}`,
            ...etcdLines(demo.etcd?.members, o.dataDir),
            `  Dashboard: ${demo.dashboardUrl}    # open it in a browser (the link logs in once)`,
            `  kubectl --kubeconfig ${kc} get nodes -o wide`,
            `  kubectl --kubeconfig ${kc} apply -f examples/pod.yaml`,
            `  curl ${demo.nodes[0]!.localApiUrl}/pods`,
            `  ${kedgeCommandFor(o.dataDir, 'link cut edge-1')}      # pull edge-1's cable (heal puts it back)`,
            `  ${kedgeCommandFor(o.dataDir, 'demo crash edge-1')}     # kill -9 edge-1's process and start it again (or restart, reboot)`,
            o.keepPods ? 'Ctrl-C stops everything but the process pods (--keep-pods).' : 'Ctrl-C stops everything, process pods too.',
            '',
          ].join('\n'),
        );
        return demo;
      }, settings);
    });
  for (const verb of demoEdgeCommands()) demo.addCommand(verb);
  demo.addCommand(demoEtcdCommand());
  return demo;
}
