import { Command } from 'commander';
import { DEFAULT_DEMO_DATA_DIR, kedgeCommandFor } from '../../sim/demo-file.js';
import { realClock } from '../../shared/clock.js';
import { numberIn, port, positive } from '../options.js';
import { runUntilStopped } from '../process-lifetime.js';
import { demoEdgeCommands } from './demo-edges.js';

export function demoCommand(): Command {
  const demo = new Command('demo')
    .description('Run a cloud and N edge processes on this machine, in the foreground; Ctrl-C stops them all, and their process pods.')
    // `kedge demo crash edge-1 --data-dir D`: the --data-dir after a verb is the verb's.
    .enablePositionalOptions()
    .option('--nodes <n>', 'number of edges (edge-1 … edge-N)', numberIn(1, 100), 3)
    .option('--data-dir <dir>', 'data of the cloud and every edge', DEFAULT_DEMO_DATA_DIR)
    .option('--api-port <port>', 'API port', port, 8080)
    .option('--mqtt-port <port>', 'MQTT broker port', port, 1883)
    .option('--local-api-base-port <port>', "edge i's local API listens on this port + i (0: free ports)", port, 10550)
    .option('--time-scale <n>', 'divide every protocol and control interval by n', positive, 1)
    .option('--keep-pods', "leave the edges' process pods running when the demo stops (by default they stop with it, as in a node shutdown)")
    .action(async (o) => {
      // Loaded on use, so that light commands (kedge link) start fast.
      const { startDemo } = await import('../../sim/demo.js');
      await runUntilStopped('demo', async (logger) => {
        const demo = await startDemo({
          nodes: o.nodes,
          dataDir: o.dataDir,
          apiPort: o.apiPort,
          mqttPort: o.mqttPort,
          localApiBasePort: o.localApiBasePort,
          timeScale: o.timeScale,
          keepPods: Boolean(o.keepPods),
          clock: realClock,
          logger,
          onLine: (line) => process.stderr.write(line + '\n'),
        });
        const kc = demo.kubeconfigPath;
        const dataDirOption = o.dataDir === DEFAULT_DEMO_DATA_DIR ? '' : ` --data-dir ${o.dataDir}`;
        process.stdout.write(
          [
            `kedge demo ready: 1 cloud, ${o.nodes} edges (each behind its own link proxy)`,
            `  Dashboard: ${demo.dashboardUrl}    # open it in a browser (the link logs in once)`,
            `  kubectl --kubeconfig ${kc} get nodes -o wide`,
            `  kubectl --kubeconfig ${kc} apply -f examples/pod.yaml`,
            `  curl ${demo.nodes[0]!.localApiUrl}/pods`,
            `  npx kedge link cut edge-1${dataDirOption}      # pull edge-1's cable (heal puts it back)`,
            `  ${kedgeCommandFor(o.dataDir, 'demo crash edge-1')}     # kill -9 edge-1's process and start it again (or restart, reboot)`,
            o.keepPods ? 'Ctrl-C stops everything but the process pods (--keep-pods).' : 'Ctrl-C stops everything, process pods too.',
            '',
          ].join('\n'),
        );
        return demo;
      });
    });
  for (const verb of demoEdgeCommands()) demo.addCommand(verb);
  return demo;
}
