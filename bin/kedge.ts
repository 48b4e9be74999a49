#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { repoRoot } from '../shared/repo-paths.js';
import { backupCommand, restoreCommand } from './commands/backup.js';
import { brokerCommand } from './commands/broker.js';
import { brokerConfigCommand } from './commands/broker-config.js';
import { cloudCommand } from './commands/cloud.js';
import { componentCommand } from './commands/component.js';
import { crictlCommand } from './commands/crictl.js';
import { demoCommand } from './commands/demo.js';
import { edgeCommand } from './commands/edge.js';
import { fleetCommand } from './commands/fleet.js';
import { linkCommand } from './commands/link.js';
import { scenarioCommand } from './commands/scenario.js';
import { tokenCommand } from './commands/token.js';

/** package.json's version: beside dist/ in a checkout and in an installed package alike. */
const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

const program = new Command('kedge')
  .description('An edge-autonomy simulator: a cloud control plane and edge kubelets that keep running offline.')
  .version(version)
  .showHelpAfterError()
  // Options after a sub-command's name are the sub-command's (`kedge demo crash edge-1 --data-dir D`).
  .enablePositionalOptions()
  .addCommand(cloudCommand())
  .addCommand(edgeCommand())
  .addCommand(brokerCommand())
  .addCommand(demoCommand())
  .addCommand(fleetCommand())
  .addCommand(linkCommand())
  .addCommand(componentCommand())
  .addCommand(crictlCommand())
  .addCommand(scenarioCommand())
  .addCommand(tokenCommand())
  .addCommand(backupCommand())
  .addCommand(restoreCommand())
  .addCommand(brokerConfigCommand());

await program.parseAsync(process.argv);
