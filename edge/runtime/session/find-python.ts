import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** The python3 on `path` (the PATH list), if there is one: exec sessions run under its helper (session-helper.ts). */
export async function findPython(path: string | undefined): Promise<string | undefined> {
  for (const dir of (path ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'python3');
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
