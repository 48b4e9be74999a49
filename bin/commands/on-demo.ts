import { Command, Option } from 'commander';
import { realClock } from '../../shared/clock.js';
import { DEFAULT_DEMO_DATA_DIR } from '../../sim/demo-file.js';
import { LinkClient, LinkCommandError } from '../../sim/link-client.js';

export interface LinkOptions {
  dataDir: string;
  output: 'text' | 'json';
}

/** --data-dir (of the running demo) and -o text|json, as every command on a running demo takes. */
export function withDemoOptions(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'data dir of the running demo', DEFAULT_DEMO_DATA_DIR)
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'));
}

/** Runs one command on the running demo: prints its result, or the problem on stderr with exit code 1. */
export async function runOnDemo(o: LinkOptions, work: (client: LinkClient) => Promise<{ json: unknown; text: string }>): Promise<void> {
  try {
    const client = await LinkClient.connect(o.dataDir, realClock);
    const out = await work(client);
    process.stdout.write((o.output === 'json' ? JSON.stringify(out.json, null, 2) : out.text) + '\n');
  } catch (err) {
    const message = err instanceof LinkCommandError ? err.message : `cannot reach the demo: ${(err as Error).message}`;
    process.stderr.write(`error: ${message}\n`);
    process.exitCode = 1;
  }
}
