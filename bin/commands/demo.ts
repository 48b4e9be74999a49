import { Command } from 'commander';
import { startDemo } from '../../sim/demo.js';
import { realClock } from '../../shared/clock.js';
import { numberIn, port, positive } from '../options.js';
import { runUntilStopped } from '../process-lifetime.js';

export function demoCommand(): Command {
  return new Command('demo')
    .description('Run a cloud and N edge processes on this machine, in the foreground; Ctrl-C stops them all.')
    .option('--nodes <n>', 'number of edges (edge-1 … edge-N)', numberIn(1, 100), 3)
    .option('--data-dir <dir>', 'data of the cloud and every edge', '.kedge/demo')
    .option('--api-port <port>', 'API port', port, 8080)
    .option('--mqtt-port <port>', 'MQTT broker port', port, 1883)
    .option('--local-api-base-port <port>', "edge i's local API listens on this port + i", port, 10550)
    .option('--time-scale <n>', 'divide every protocol and control interval by n', positive, 1)
    .action(async (o) => {
      await runUntilStopped('demo', async (logger) => {
        const demo = await startDemo({
          nodes: o.nodes,
          dataDir: o.dataDir,
          apiPort: o.apiPort,
          mqttPort: o.mqttPort,
          localApiBasePort: o.localApiBasePort,
          timeScale: o.timeScale,
          clock: realClock,
          logger,
          onLine: (line) => process.stderr.write(line + '\n'),
        });
        const kc = demo.kubeconfigPath;
        process.stdout.write(
          [
            `kedge demo ready: 1 cloud, ${o.nodes} edges`,
            `  kubectl --kubeconfig ${kc} get nodes -o wide`,
            `  kubectl --kubeconfig ${kc} create --validate=false -f examples/pod.yaml`,
            `  curl http://127.0.0.1:${o.localApiBasePort + 1}/pods`,
            'Ctrl-C stops everything.',
            '',
          ].join('\n'),
        );
        return demo;
      });
    });
}
