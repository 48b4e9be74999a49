import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The repository's root, whether this module runs compiled (dist/shared/) or from source (shared/, under vitest). */
export const repoRoot = basename(dirname(here)) === 'dist' ? resolve(here, '../..') : resolve(here, '..');

/** Where `npm run build` puts the compiled project. */
export const distDir = join(repoRoot, 'dist');
