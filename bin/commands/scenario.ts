import { join, relative } from 'node:path';
import { Command } from 'commander';
import { realClock } from '../../shared/clock.js';
import { createLogger, silentLogger } from '../../shared/log.js';
import { positive } from '../options.js';
import { textTable } from '../text-table.js';

/** Exit codes: every expectation held; one did not (or a step failed, or Ctrl-C); the file or name is bad. */
export const EXIT = { passed: 0, failed: 1, badScenario: 2 } as const;

interface RunOptions {
  timeScale?: number;
  out?: string;
  verbose?: boolean;
}

const firstSentence = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[.:;](\s|$)/);
  return end < 0 ? flat : flat.slice(0, end);
};

async function list(): Promise<void> {
  const { builtinScenarios } = await import('../../sim/scenario/catalog.js');
  const all = await builtinScenarios();
  process.stdout.write(textTable(all.map(({ scenario }) => [scenario.name, firstSentence(scenario.description)])) + '\n');
}

async function run(nameOrFile: string, o: RunOptions): Promise<void> {
  const { resolveScenario, UnknownScenarioError } = await import('../../sim/scenario/catalog.js');
  const { ScenarioFileError } = await import('../../sim/scenario/parse.js');
  const { runScenarioSession } = await import('../../sim/scenario/session.js');
  const { verdictLine } = await import('../../sim/scenario/report.js');
  let loaded;
  try {
    loaded = await resolveScenario(nameOrFile);
  } catch (err) {
    const bad = err instanceof ScenarioFileError || err instanceof UnknownScenarioError;
    process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exitCode = bad ? EXIT.badScenario : EXIT.failed;
    return;
  }
  const { scenario, source } = loaded;
  const outDir = o.out ?? join('.kedge', 'scenarios', scenario.name);
  const interrupt = new AbortController();
  const onSignal = (): void => interrupt.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    const result = await runScenarioSession({
      scenario,
      source,
      timeScale: o.timeScale ?? scenario.timeScale,
      outDir,
      clock: realClock,
      logger: o.verbose ? createLogger('scenario') : silentLogger,
      signal: interrupt.signal,
      onProgress: (line) => process.stdout.write(line + '\n'),
      ...(o.verbose && { onLine: (line: string) => process.stderr.write(line + '\n') }),
    });
    process.stdout.write(`${verdictLine(result.report)}\nreport: ${relative('.', result.htmlPath)} (and report.json)\n`);
    process.exitCode = result.report.passed ? EXIT.passed : EXIT.failed;
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`); // its data dir held by another process
    process.exitCode = EXIT.failed;
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
}

export function scenarioCommand(): Command {
  const listCommand = new Command('list').description('List the built-in scenarios: one a line, name first').action(list);
  const runCommand = new Command('run')
    .description('Start a demo, act out a scenario, check its expectations and write a report (exit 0: all held, 1: not, 2: bad scenario)')
    .argument('<name|file>', 'a built-in scenario (kedge scenario list) or a scenario YAML file')
    .option('--time-scale <s>', "divide every interval by s (default: the scenario's own)", positive)
    .option('--out <dir>', 'where report.json, report.html and the demo data go (default .kedge/scenarios/<name>)')
    .option('-v, --verbose', "print the demo's own output on stderr")
    .action(run);
  return new Command('scenario')
    .description('Act out failures against a demo from a YAML script and report what held, with a timeline.')
    .addCommand(listCommand)
    .addCommand(runCommand);
}
