import { Command } from 'commander';
import { formatGoDuration } from '../../shared/go-duration.js';
import type { LinkClient, LinkFields } from '../../sim/link-client.js';
import type { FlapState } from '../../sim/link-shape/flap.js';
import { describeProblems, FLAP_FIELDS, parseFlap, parseShape, SHAPE_FIELDS, type FieldNamer, type FieldProblem } from '../../sim/link-shape/parse.js';
import { describeProfile, PROFILE_NAMES } from '../../sim/link-shape/profile.js';
import type { LinkState } from '../../sim/link-proxy.js';
import { nodeName } from '../options.js';
import { runOnDemo, withDemoOptions, type LinkOptions } from './on-demo.js';

/** A request field as its flag: rateUp → --rate-up. */
const flag = (field: string): string => `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

type Given = LinkOptions & Record<string, string | boolean | undefined>;

function fieldsOf(o: Given, names: readonly string[]): LinkFields {
  return Object.fromEntries(names.map((n) => [n, o[n] === undefined ? undefined : String(o[n])]));
}

/** Bad flags are refused before the demo is asked: the message names each flag. */
function refuse(problems: FieldProblem[]): void {
  process.stderr.write(`error: ${describeProblems(problems, flag)}\n`);
  process.exitCode = 1;
}

interface LinkRequest {
  fields: readonly string[];
  parse(fields: LinkFields, name: FieldNamer): { problems?: FieldProblem[] };
  send(client: LinkClient, node: string, fields: LinkFields): Promise<LinkState>;
  text(state: LinkState): string;
}

/** Checks the flags here (naming them), then asks the demo, which checks them again. */
function linkRequest(command: Command, r: LinkRequest): Command {
  return withDemoOptions(command).action((node: string, o: Given) => {
    const fields = fieldsOf(o, r.fields);
    const { problems } = r.parse(fields, flag);
    if (problems) return refuse(problems);
    return runOnDemo(o, async (client) => {
      const state = await r.send(client, node, fields);
      return { json: state, text: r.text(state) };
    });
  });
}

/** `down 5s every 30s`, `… seed 7`, and where the cycle is. */
export function flapText(f: FlapState): string {
  const seed = f.seed === undefined ? '' : `,seed=${f.seed}`;
  return `${formatGoDuration(f.downMs)}/${formatGoDuration(f.everyMs)}${seed}`;
}

function shapeText(s: LinkState): string {
  if (!s.profile) return `${s.name}: not shaped, not flapping; link ${s.state}`;
  return `${s.name}: shaped ${s.profile.name} (${describeProfile(s.profile)}); link ${s.state}`;
}

function flapSummary(s: LinkState): string {
  if (!s.flap) return `${s.name}: not flapping; link ${s.state}`;
  const f = s.flap;
  const pattern = f.seed === undefined ? '' : ` (a random pattern, seed ${f.seed})`;
  return `${s.name}: flaps down ${formatGoDuration(f.downMs)} every ${formatGoDuration(f.everyMs)}${pattern}; link ${s.state}`;
}

export function shapeCommand(): Command {
  const command = new Command('shape')
    .description('Shape the edge\'s link: latency ± jitter, loss, rate caps per direction, in cluster time (see docs/operations.md, "Shaping a link")')
    .argument('<node>', 'edge node name, e.g. edge-1', nodeName)
    .option('--profile <name>', `a named profile: ${PROFILE_NAMES.join(', ')} (fields given with it change it)`)
    .option('--latency <duration>', 'one-way delay of each chunk, e.g. 600ms')
    .option('--jitter <duration>', 'each delay varies by up to ± this, e.g. 100ms')
    .option('--loss <percent>', 'chance a 1500-byte segment is lost and retransmitted, e.g. 2%')
    .option('--rate <rate>', 'rate cap both ways, e.g. 64kbit, 1.5mbit')
    .option('--rate-up <rate>', 'rate cap edge → broker')
    .option('--rate-down <rate>', 'rate cap broker → edge')
    .option('--seed <n>', 'seeds the jitter and loss draws (a replayable run)')
    .option('--clear', 'remove the profile and stop any flap');
  return linkRequest(command, { fields: SHAPE_FIELDS, parse: parseShape, send: (client, node, fields) => client.shape(node, fields), text: shapeText });
}

export function flapCommand(): Command {
  const command = new Command('flap')
    .description('Cut and heal the edge\'s link on a schedule (cluster time): down for --down every --every')
    .argument('<node>', 'edge node name, e.g. edge-1', nodeName)
    .option('--down <duration>', 'how long the link stays down each time, e.g. 5s')
    .option('--every <duration>', 'how often it goes down, e.g. 30s')
    .option('--seed <n>', 'a random pattern around the schedule, replayable with the same seed')
    .option('--stop', 'stop flapping (the link is healed)');
  return linkRequest(command, { fields: FLAP_FIELDS, parse: parseFlap, send: (client, node, fields) => client.flap(node, fields), text: flapSummary });
}
