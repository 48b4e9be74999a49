import { Command, Option } from 'commander';
import { defaultTiming, scaleTiming } from '../../shared/timing.js';
import { list, port, positive } from '../options.js';
import { runUntilStopped } from '../process-lifetime.js';

export function cloudCommand(): Command {
  return new Command('cloud')
    .description('Run the control plane: apiserver, store, scheduler, controllers and the sync hub with an embedded MQTT broker.')
    .option('--data-dir <dir>', 'where the store, credentials and kubeconfig live', '.kedge/cloud')
    .option('--api-host <host>', 'address the API listens on', '127.0.0.1')
    .option('--api-port <port>', 'API port', port, 8080)
    .option('--mqtt-host <host>', 'address the embedded MQTT broker listens on', '127.0.0.1')
    .option('--mqtt-port <port>', 'embedded MQTT broker port', port, 1883)
    .option('--broker <url>', 'use this external MQTT broker instead of the embedded one')
    .addOption(new Option('--store <kind>', 'where the cloud keeps its objects').choices(['durable', 'memory']).default('durable'))
    .option('--time-scale <n>', 'divide every protocol and control interval by n', positive, 1)
    .option('--disable <names>', 'start without these components, e.g. scheduler,controller-manager (start them later with kedge component start)', list, [])
    .action(async (o) => {
      // Loaded on use, so that light commands (kedge link) start fast.
      const { startCloud } = await import('../../cloud/main.js');
      await runUntilStopped('cloud', async (logger) => {
        const cloud = await startCloud({
          dataDir: o.dataDir,
          apiHost: o.apiHost,
          apiPort: o.apiPort,
          mqttHost: o.mqttHost,
          mqttPort: o.mqttPort,
          brokerUrl: o.broker,
          store: o.store,
          timing: scaleTiming(defaultTiming, o.timeScale),
          disable: o.disable,
          logger,
        });
        // The demo (and scripts) wait for this exact line.
        process.stdout.write(`kedge cloud ready api=${cloud.apiUrl} mqtt=${cloud.brokerUrl} kubeconfig=${cloud.kubeconfigPath}\n`);
        return cloud;
      });
    });
}
