import { existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { repoRoot } from './repo-paths.js';

export interface CliNameContext {
  repoRoot: string;
  cwd: string;
  exists: (path: string) => boolean;
}

/**
 * How a user runs this CLI, for the commands it prints: in a checkout (sources and the
 * bin/kedge wrapper beside dist/), the wrapper's path from the current directory, usually
 * `bin/kedge`; installed from a package, `kedge`.
 */
export function cliNameIn(c: CliNameContext): string {
  const wrapper = join(c.repoRoot, 'bin', 'kedge');
  if (!c.exists(wrapper) || !c.exists(join(c.repoRoot, 'bin', 'kedge.ts'))) return 'kedge';
  const path = relative(c.cwd, wrapper);
  return path.includes(sep) ? path : `.${sep}${path}`;
}

/** cliNameIn for this process. */
export function cliName(): string {
  return cliNameIn({ repoRoot, cwd: process.cwd(), exists: existsSync });
}
