import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { repoRoot } from '../../shared/repo-paths.js';
import { readManifest } from './manifests.js';
import { parseScenarioText, ScenarioFileError } from './parse.js';
import type { Scenario } from './types.js';

/** The repository: manifest paths are relative to it. */
export { repoRoot };
/** Where the built-in scenarios live: one YAML file each. */
export const builtinDir = join(repoRoot, 'scenarios');

/** A scenario named on the command line that is neither a file nor a built-in. */
export class UnknownScenarioError extends Error {
  constructor(name: string, known: string[]) {
    super(`no scenario named "${name}" and no such file (built-in: ${known.join(', ')})`);
    this.name = 'UnknownScenarioError';
  }
}

export interface LoadedScenario {
  scenario: Scenario;
  /** The file it came from. */
  source: string;
}

/** Reads, validates and loads a scenario file: manifest paths become the objects they hold. */
export async function loadScenarioFile(path: string, root = repoRoot): Promise<LoadedScenario> {
  const text = await readFile(path, 'utf8');
  const scenario = parseScenarioText(text, path);
  const problems: string[] = [];
  for (const [i, step] of scenario.steps.entries()) {
    if (step.kind !== 'apply' || step.path === undefined) continue;
    try {
      step.objects = await readManifest(root, step.path);
    } catch (err) {
      problems.push(`step ${i + 1} (apply), field "apply": ${(err as Error).message}`);
    }
  }
  if (problems.length > 0) throw new ScenarioFileError(path, problems);
  const inRepo = relative(root, resolve(path));
  return { scenario, source: inRepo.startsWith('..') ? path : inRepo };
}

/** Every built-in scenario, in file name order. */
export async function builtinScenarios(dir = builtinDir): Promise<LoadedScenario[]> {
  const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
  return Promise.all(files.map((f) => loadScenarioFile(join(dir, f))));
}

const isFile = (path: string): Promise<boolean> => stat(path).then((s) => s.isFile(), () => false);

/** A scenario file's path, or a built-in's name (its file name without .yaml). */
export async function resolveScenario(nameOrFile: string, dir = builtinDir): Promise<LoadedScenario> {
  if (await isFile(nameOrFile)) return loadScenarioFile(nameOrFile);
  const names = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
  const file = names.find((f) => f.replace(/\.ya?ml$/, '') === nameOrFile);
  if (!file) throw new UnknownScenarioError(nameOrFile, names.map((f) => f.replace(/\.ya?ml$/, '')));
  return loadScenarioFile(join(dir, file));
}
