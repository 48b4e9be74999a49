import { Command } from 'commander';
import { defaultTiming, scaleTiming } from '../../shared/timing.js';
import { MAX_PODS_LIMIT } from '../../edge/runtime/pod-subnet.js';
import { nodeName, numberIn, port, positive } from '../options.js';
import { runUntilStopped } from '../process-lifetime.js';

export function edgeCommand(): Command {
  return new Command('edge')
    .description('Run an edge node: MQTT hub, local cache, kubelet (edged), runtime and the local API.')
    .requiredOption('--node <name>', 'node name', nodeName)
    .requiredOption('--broker <url>', 'MQTT broker URL, e.g. mqtt://127.0.0.1:1883')
    .requiredOption('--token <token>', 'edge token issued by the cloud (<cloud data dir>/tokens.json)')
    .option('--data-dir <dir>', 'where the cache and runtime state live (default .kedge/edge/<node>)')
    .option('--local-api-port <port>', 'port of the local read-only API on 127.0.0.1', port, 10550)
    .option('--time-scale <n>', 'divide every protocol and control interval by n', positive, 1)
    .option('--max-pods <n>', "the node's capacity in pods, as the kubelet's flag (sizes its sim pod subnet)", numberIn(1, MAX_PODS_LIMIT), 110)
    .option('--reboot', 'start as after a node reboot: containers from before are gone and start again')
    .action(async (o) => {
      // Loaded on use, so that light commands (kedge link) start fast.
      const { startEdge } = await import('../../edge/main.js');
      await runUntilStopped(`edge/${o.node}`, async (logger) => {
        const edge = await startEdge({
          nodeName: o.node,
          brokerUrl: o.broker,
          token: o.token,
          dataDir: o.dataDir ?? `.kedge/edge/${o.node}`,
          localApiPort: o.localApiPort,
          timing: scaleTiming(defaultTiming, o.timeScale),
          logger,
          reboot: Boolean(o.reboot),
          maxPods: o.maxPods,
        });
        process.stdout.write(`kedge edge ${o.node} ready local-api=${edge.localApiUrl}\n`);
        return edge;
      });
    });
}
