import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Reads @kubernetes/client-node's generated models as data: each class's attributeTypeMap
 * (JSON field name, TypeScript type, format) from its .js file and the descriptions from its
 * .d.ts. Text only: nothing is imported, so it works on any copy of the package.
 */

export interface ModelField {
  /** The JSON name (attributeTypeMap's baseName). */
  name: string;
  /** client-node's type: string, number, boolean, Date, IntOrString, Array<T>, { [key: string]: T; }, a model class. */
  type: string;
  format: string;
  description?: string;
  required: boolean;
}

export interface Model {
  className: string;
  description?: string;
  fields: ModelField[];
}

export type ModelReader = (className: string) => Model | undefined;

interface Attribute {
  baseName: string;
  type: string;
  format: string;
}

/** Models read from `dir` (node_modules/@kubernetes/client-node/dist/gen/models), each read once. */
export function modelReader(dir: string): ModelReader {
  const cache = new Map<string, Model | undefined>();
  return (className) => {
    if (!cache.has(className)) cache.set(className, readModel(dir, className));
    return cache.get(className);
  };
}

function readModel(dir: string, className: string): Model | undefined {
  let js: string;
  let dts: string;
  try {
    js = readFileSync(join(dir, `${className}.js`), 'utf8');
    dts = readFileSync(join(dir, `${className}.d.ts`), 'utf8');
  } catch {
    return undefined;
  }
  const attributes = attributeTypeMap(js, className);
  if (!attributes) return undefined;
  const docs = fieldDocs(dts);
  return {
    className,
    description: classDoc(dts),
    fields: attributes.map((a) => ({ name: a.baseName, type: a.type, format: a.format, description: docs.get(a.baseName)?.text, required: docs.get(a.baseName)?.required ?? false })),
  };
}

function attributeTypeMap(js: string, className: string): Attribute[] | undefined {
  const start = js.indexOf(`${className}.attributeTypeMap = [`);
  if (start < 0) return undefined;
  const open = js.indexOf('[', start);
  const close = js.indexOf('\n];', open);
  return JSON.parse(js.slice(open, close + 2)) as Attribute[];
}

/** A JSDoc block's text: its lines without the leading `*`, joined; the generator's `\"` unescaped. */
function docText(block: string): string {
  return block
    .split('\n')
    .map((l) => l.replace(/^\s*\/?\*+\/?\s?/, '').trimEnd())
    .filter((l) => l !== '')
    .join('\n')
    .replace(/\\(["'])/g, '$1')
    .trim();
}

function classDoc(dts: string): string | undefined {
  const m = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export declare class/.exec(dts);
  return m ? docText(m[1]!) || undefined : undefined;
}

/** Each field's description and whether it is required (declared without `?`). */
function fieldDocs(dts: string): Map<string, { text?: string; required: boolean }> {
  const out = new Map<string, { text?: string; required: boolean }>();
  const body = dts.slice(dts.indexOf('export declare class'));
  const field = /(?:\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*)?'([^']+)'(\??):/g;
  for (let m = field.exec(body); m; m = field.exec(body)) {
    out.set(m[2]!, { text: m[1] ? docText(m[1]) || undefined : undefined, required: m[3] !== '?' });
  }
  return out;
}
