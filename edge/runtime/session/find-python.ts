import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** The interpreter itself behind a `python3` (a version manager's shim needs an env the container's may not have). */
function executableOf(python: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(python, ['-c', 'import sys; print(sys.executable)'], { timeout: 10_000 }, (err, stdout) => resolve(err ? undefined : stdout.trim() || undefined));
  });
}

/** The python3 on `path` (the PATH list), if there is one that runs: exec sessions run under its helper (session-helper.ts). */
export async function findPython(path: string | undefined): Promise<string | undefined> {
  for (const dir of (path ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'python3');
    const runnable = await access(candidate, constants.X_OK).then(() => true, () => false);
    if (runnable) return executableOf(candidate);
  }
  return undefined;
}
