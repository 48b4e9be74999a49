import { pathToFileURL } from 'node:url';
import { DEFAULT_LIMITS } from '../cloud/hub/broker.js';
import { mosquittoContender, workerContender, type BrokerContender } from './broker-contenders.js';
import { benchNode, BrokerLoad, PAYLOAD_BYTES, SHAPES, type LoadSettings, type Shape, type ShapeFigures } from './broker-load.js';
import { interleavedRounds } from './interleave.js';
import { median, round } from './stats.js';

/*
 * The broker side by side (issue 24): kedge's embedded broker as the cloud serves it (guard
 * layer, credentials, topic ACLs; the default per-node rate limit, and with it off), plain
 * aedes, and Debian's Mosquitto configured by kedge, each in its own process, in interleaved
 * rounds. Figures are medians over rounds. Alone: `node dist/bench/broker.js [rounds] [seconds]`;
 * KEDGE_BENCH_CPU_PROF=<dir> writes a .cpuprofile of each kedge broker process there.
 */
export interface BrokerBenchOptions {
  rounds: number;
  seconds: number;
  nodes?: number;
  inFlight?: number;
  log: (line: string) => void;
  cpuProfileDir?: string;
}

type Figures = Record<string, Record<Shape, ShapeFigures>>;

function contenders(cpuProfileDir: string | undefined, log: (line: string) => void): BrokerContender[] {
  const list = [
    workerContender('kedge', 'kedge', cpuProfileDir),
    workerContender('kedge, limiter off', 'kedge-unlimited', cpuProfileDir),
    workerContender('aedes', 'aedes'),
  ];
  const mosquitto = mosquittoContender();
  if (mosquitto) list.push(mosquitto);
  else log('broker: Mosquitto is not installed (apt-get install -y mosquitto): measured without it, no ratios');
  return list;
}

async function measureOnce(contender: BrokerContender, settings: LoadSettings): Promise<Record<Shape, ShapeFigures>> {
  const nodes = Array.from({ length: settings.nodes }, (_, i) => benchNode(i));
  const broker = await contender.start(nodes);
  try {
    const load = await BrokerLoad.connect(broker.url, settings);
    const figures = {} as Record<Shape, ShapeFigures>;
    for (const shape of SHAPES) figures[shape] = await load.run(shape, broker.pid);
    await load.close();
    return figures;
  } finally {
    await broker.stop();
  }
}

const medianOf = (rounds: Record<Shape, ShapeFigures>[], shape: Shape): ShapeFigures => {
  const of = (k: keyof ShapeFigures): number => median(rounds.map((r) => r[shape][k]));
  return { msgsPerSec: of('msgsPerSec'), cpuMicrosPerMsg: of('cpuMicrosPerMsg'), p50Ms: of('p50Ms'), p99Ms: of('p99Ms') };
};

export async function runBrokerBench(options: BrokerBenchOptions): Promise<Record<string, unknown>> {
  const settings: LoadSettings = { nodes: options.nodes ?? 32, inFlight: options.inFlight ?? 64, seconds: options.seconds, warmupMessages: DEFAULT_LIMITS.publishBurst };
  const list = contenders(options.cpuProfileDir, options.log);
  const rounds = await interleavedRounds(list.length, options.rounds, async (c, r) => {
    const figures = await measureOnce(list[c]!, settings);
    options.log(`broker: round ${r + 1}, ${list[c]!.name}: ${SHAPES.map((s) => `${s} ${figures[s].msgsPerSec}/s ${figures[s].cpuMicrosPerMsg} µs`).join(', ')}`);
    return figures;
  });
  const figures: Figures = {};
  list.forEach((contender, c) => (figures[contender.name] = Object.fromEntries(SHAPES.map((s) => [s, medianOf(rounds[c]!, s)])) as Record<Shape, ShapeFigures>));
  return summarize(figures, { ...settings, rounds: options.rounds, payloadBytes: PAYLOAD_BYTES, qos: 1, rateLimit: { perSecond: DEFAULT_LIMITS.publishesPerSecond, burst: DEFAULT_LIMITS.publishBurst } });
}

/** The contract's figures (fan-in, kedge as served, against Mosquitto), and every contender's by shape. */
export function summarize(figures: Figures, settings: Record<string, unknown>): Record<string, unknown> {
  const kedge = figures.kedge?.['fan-in'];
  const mosquitto = figures.Mosquitto?.['fan-in'];
  const ratio = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined || b === undefined ? undefined : round(a / b, 2));
  return {
    settings,
    msgsPerSec: kedge?.msgsPerSec,
    mosquittoMsgsPerSec: mosquitto?.msgsPerSec,
    ratio: ratio(kedge?.msgsPerSec, mosquitto?.msgsPerSec),
    cpuMicrosPerMsg: kedge?.cpuMicrosPerMsg,
    mosquittoCpuMicrosPerMsg: mosquitto?.cpuMicrosPerMsg,
    cpuRatio: ratio(kedge?.cpuMicrosPerMsg, mosquitto?.cpuMicrosPerMsg),
    contenders: figures,
    againstMosquitto: figures.Mosquitto ? Object.fromEntries(Object.entries(figures).map(([name, shapes]) => [name, Object.fromEntries(SHAPES.map((s) => [s, {
      rate: ratio(shapes[s].msgsPerSec, figures.Mosquitto![s].msgsPerSec),
      cpu: ratio(shapes[s].cpuMicrosPerMsg, figures.Mosquitto![s].cpuMicrosPerMsg),
    }]))])) : undefined,
  };
}

/** The figures as a table: one row per contender and shape. */
export function formatBroker(r: Record<string, unknown>): string {
  const figures = r.contenders as Figures;
  const vs = r.againstMosquitto as Record<string, Record<Shape, { rate?: number; cpu?: number }>> | undefined;
  const rows = Object.entries(figures).flatMap(([name, shapes]) => SHAPES.map((s) => {
    const f = shapes[s];
    const m = vs?.[name]?.[s];
    return `| ${name} | ${s} | ${f.msgsPerSec.toLocaleString('en-US')} | ${f.cpuMicrosPerMsg} | ${f.p50Ms} | ${f.p99Ms} | ${m?.rate ?? '–'} | ${m?.cpu ?? '–'} |`;
  }));
  return ['| broker | load | delivered msg/s | broker CPU µs/msg | p50 ms | p99 ms | rate / Mosquitto | CPU / Mosquitto |', '|---|---|---|---|---|---|---|---|', ...rows].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [rounds = 3, seconds = 2] = process.argv.slice(2).map(Number);
  const log = (line: string): boolean => process.stderr.write(`${line}\n`);
  const result = await runBrokerBench({ rounds, seconds, log, cpuProfileDir: process.env.KEDGE_BENCH_CPU_PROF });
  process.stdout.write(`${formatBroker(result)}\n`);
}
