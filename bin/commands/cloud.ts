import { PodStartupRecorder, preciseWallTime } from '../../shared/trace/pod-startup-trace.js';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { defaultTiming, scaleTiming } from '../../shared/timing.js';
import { isLoopbackHost } from '../../cloud/network.js';
import { clusterCidrConfig, DEFAULT_CLUSTER_CIDR, DEFAULT_NODE_CIDR_MASK_SIZE } from '../../cloud/controllers/nodeipam/cidr.js';
import { DEFAULT_CONTROL_PLANE_NODE } from '../../cloud/control-plane-node/node-object.js';
import { logSettings, withLogOptions } from '../log-options.js';
import { advertisedAddress, brokerList, duration, list, nodeName, numberIn, port, positive } from '../options.js';
import { leaderElectionOptions, leaderElectionTiming } from '../leader-elect-options.js';
import type { PortOption } from '../port-options.js';
import { runUntilStopped } from '../process-lifetime.js';
import { DEFAULT_HEAP_GROWTH_PERCENT, limitHeapGrowth } from '../heap-growth.js';
import { etcdSettings, withEtcdCompaction, withEtcdOptions } from '../etcd-options.js';
import type { EtcdSettings } from '../../cloud/store/etcd/open-etcd-store.js';

/** Ports when the cloud is bound beyond loopback, as Kubernetes (API) and MQTT over TLS use. */
const SECURE_API_PORT = 6443;
const SECURE_MQTT_PORT = 8883;

interface Listening {
  apiHost: string;
  apiPort: number;
  mqttHost: string;
  mqttPort: number;
  tlsOnly: boolean;
}

/** The ports the cloud listens on, with the options that set them. */
function cloudPorts(where: Listening, externalBroker: boolean): PortOption[] {
  const api = { port: where.apiPort, host: where.apiHost, option: '--api-port', what: 'the API' };
  return externalBroker ? [api] : [api, { port: where.mqttPort, host: where.mqttHost, option: '--mqtt-port', what: 'the embedded MQTT broker' }];
}

/** Where the cloud listens and whether it insists on TLS, from --bind, --insecure and the explicit hosts and ports. */
export function listening(o: Record<string, unknown>, explicit: (option: string) => boolean): Listening {
  const bind = o.bind as string | undefined;
  const apiHost = bind ?? (o.apiHost as string);
  const mqttHost = bind ?? (o.mqttHost as string);
  const beyondLoopback = !isLoopbackHost(apiHost) || !isLoopbackHost(mqttHost);
  const tlsOnly = beyondLoopback && !o.insecure;
  const secure = bind !== undefined && !isLoopbackHost(bind);
  return {
    apiHost,
    mqttHost,
    apiPort: secure && !explicit('apiPort') ? SECURE_API_PORT : (o.apiPort as number),
    mqttPort: secure && !explicit('mqttPort') && tlsOnly ? SECURE_MQTT_PORT : (o.mqttPort as number),
    tlsOnly,
  };
}

/** The etcd settings with --store etcd; none otherwise, and etcd flags without it are a mistake. */
function storeEtcd(o: Record<string, unknown>): EtcdSettings | undefined | string {
  if (o.store === 'etcd') return etcdSettings(o);
  return o.etcdEndpoints === undefined ? undefined : '--etcd-endpoints needs --store etcd';
}

export function cloudCommand(): Command {
  const command = withLogOptions(withEtcdCompaction(withEtcdOptions(new Command('cloud')
    .description('Run the control plane: apiserver, store, scheduler, controllers and the sync hub with an embedded MQTT broker.')
    .option('--data-dir <dir>', 'where the store, credentials, CA and kubeconfig live', '.kedge/cloud')
    .option('--bind <addr>', `listen on this address (e.g. 0.0.0.0) for the API (port ${SECURE_API_PORT}) and MQTT over TLS (port ${SECURE_MQTT_PORT}); beyond loopback TLS is on unless --insecure`)
    .option('--insecure', 'beyond loopback, allow plain HTTP on the API and plain MQTT (traffic can be read and forged on the way)')
    .option('--advertise-address <ip>', 'the IP this cloud is reached at by the cluster: listed in the kubernetes Service\'s Endpoints and in the serving certificate (default: --api-host if an IP, 127.0.0.1 for localhost, else this machine\'s first non-loopback IPv4 address)', advertisedAddress)
    .option('--tls-san <names>', 'more host names or addresses for the serving certificate, comma-separated', list, [])
    .option('--api-host <host>', 'address the API listens on (--bind sets it)', '127.0.0.1')
    .option('--api-port <port>', `API port (${SECURE_API_PORT} with --bind)`, port, 8080)
    .option('--mqtt-host <host>', 'address the embedded MQTT broker listens on (--bind sets it)', '127.0.0.1')
    .option('--mqtt-port <port>', `embedded MQTT broker port (${SECURE_MQTT_PORT} with --bind)`, port, 1883)
    .option('--broker <url>', 'use this external MQTT broker instead of the embedded one (or the members of a broker cluster, comma-separated)', brokerList)
    .addOption(new Option('--store <kind>', 'where the cloud keeps its objects (etcd: in etcd, see --etcd-endpoints)').choices(['durable', 'memory', 'etcd']).default('durable'))
    .option('--time-scale <n>', 'divide every protocol and control interval by n', positive, 1)
    .addOption(new Option('--event-ttl <duration>', 'how long an Event is kept after its last write, e.g. 1h, 30m (divided by --time-scale)').argParser(duration).default(defaultTiming.eventTtlMs, '1h'))
    .option('--cluster-cidr <cidr>', "the pod network (IPv4), cut into one range per node (spec.podCIDR); on one machine a loopback range, so pods listen on real addresses", DEFAULT_CLUSTER_CIDR)
    .option('--node-cidr-mask-size <n>', "the prefix length of each node's pod range", numberIn(1, 32), DEFAULT_NODE_CIDR_MASK_SIZE)
    .option('--node-name <name>', 'the Node the cloud registers itself as (role control-plane), with its components as mirror pods in kube-system; with several clouds on one store, each its own (e.g. $(hostname))', nodeName, DEFAULT_CONTROL_PLANE_NODE)
    .option('--no-agent-daemonsets', "do not create the edge agents' DaemonSets kube-system/kube-proxy and kube-system/kedge-cni")
    .option('--heap-growth <percent>', 'how far the JavaScript heap may grow past what the last full garbage collection left live before the next one (0: as V8 decides)', numberIn(0, 1000), DEFAULT_HEAP_GROWTH_PERCENT)
    .option('--trace-pod-startup', 'note when each pod is created, bound, sent to its node, reported and seen Running; admins read it at /debug/kedge/pod-startups')
    .option('--disable <names>', 'start without these components, e.g. scheduler,controller-manager (start them later with kedge component start)', list, []))));
  leaderElectionOptions(command);
  return command.action(async (o) => {
    // Loaded on use, so that light commands (kedge link) start fast.
    limitHeapGrowth(o.heapGrowth);
    const { startCloud } = await import('../../cloud/main.js');
    try {
      clusterCidrConfig(o.clusterCidr, o.nodeCidrMaskSize);
    } catch (err) {
      command.error(`error: ${(err as Error).message}`, { code: 'kedge.invalidPodNetwork' });
    }
    const etcd = storeEtcd(o);
    if (typeof etcd === 'string') return command.error(`error: ${etcd}`, { code: 'kedge.invalidStore' });
    const election = leaderElectionTiming(o, command);
    const { FOR_PARENT_ENV, lockDataDir } = await import('../../shared/data-dir-lock.js');
    const where = listening(o, (name) => command.getOptionValueSource(name) === 'cli');
    const dataDir = resolve(o.dataDir);
    await runUntilStopped('cloud', async (logger) => {
      // Started by kedge demo, which holds the data dir: this cloud works for it.
      const lock = await lockDataDir(dataDir, { command: 'kedge cloud', logger, forParent: process.env[FOR_PARENT_ENV] === '1' });
      const cloud = await startCloud({
        lock,
        dataDir,
        ...where,
        tlsSans: o.tlsSan,
        advertiseAddress: o.advertiseAddress,
        brokerUrl: o.broker,
        store: o.store,
        etcd,
        timing: scaleTiming({ ...defaultTiming, eventTtlMs: o.eventTtl, ...election }, o.timeScale),
        leaderElect: o.leaderElect,
        disable: o.disable,
        clusterCidr: o.clusterCidr,
        nodeCidrMaskSize: o.nodeCidrMaskSize,
        controlPlaneNode: o.nodeName,
        agentDaemonSets: o.agentDaemonsets,
        ...(o.tracePodStartup && { podStartups: new PodStartupRecorder(preciseWallTime) }),
        logger,
      });
      // The demo (and scripts) wait for this exact line.
      process.stdout.write(`kedge cloud ready api=${cloud.apiUrl} mqtt=${cloud.brokerUrl} kubeconfig=${cloud.kubeconfigPath} data-dir=${dataDir}\n`);
      return cloud;
    }, logSettings(o), cloudPorts(where, o.broker !== undefined));
  });
}
