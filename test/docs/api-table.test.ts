import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kindsTable, withKindsTable } from '../../cloud/apiserver/kinds/api-table.js';
import { clusterResources } from '../../cloud/apiserver/kinds/resources.js';
import { componentStatusResource } from '../../cloud/apiserver/ops/components-api.js';
import type { ComponentControl } from '../../cloud/components/component.js';

/** docs/api.md's kinds table is the resource table's: run with KEDGE_WRITE_API_TABLE=1 to rewrite it. */
describe('docs/api.md kinds table', () => {
  it('matches the resource table', async () => {
    const file = join(import.meta.dirname, '../../docs/api.md');
    const doc = await readFile(file, 'utf8');
    const defs = [...clusterResources, componentStatusResource({} as ComponentControl)];
    const expected = withKindsTable(doc, kindsTable(defs));
    if (process.env.KEDGE_WRITE_API_TABLE === '1') await writeFile(file, expected);
    else expect(doc).toBe(expected);
  });
});
