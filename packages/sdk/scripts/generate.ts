/**
 * Writes src/generated/api.ts: one standalone TypeScript type per procedure input and output, from
 * the server's router and the shared zod schemas (zod → JSON Schema → json-schema-to-typescript).
 * The SDK's declarations then name no @trpc/server type, so they type-check in any consumer setup.
 * `--check` fails instead of writing when the file on disk is stale (run by the SDK's test).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ActivitySchema, DEFAULT_STATES, ERROR_REASONS } from '@tasklane/schemas';
import { appRouter } from '@tasklane/server/router';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { z } from 'zod';

const target = fileURLToPath(new URL('../src/generated/api.ts', import.meta.url));

type Json = Record<string, unknown>;
type ProcedureDef = { type: 'query' | 'mutation' | 'subscription'; inputs: z.ZodType[]; output?: z.ZodType };

export function procedures(): [string, ProcedureDef][] {
  const all = (appRouter as unknown as { _def: { procedures: Record<string, { _def: ProcedureDef }> } })._def.procedures;
  return Object.entries(all).map(([path, procedure]) => [path, procedure._def]);
}

/** Regexes and examples say nothing to a type; a date-time input also takes a Date (sent as its ISO string). */
function tidy(node: unknown, io: 'input' | 'output'): unknown {
  if (Array.isArray(node)) return node.map((item) => tidy(item, io));
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (['pattern', 'example', 'examples', '$schema', 'default'].includes(key)) continue;
    out[key] = key === 'properties' || key === '$defs' ? Object.fromEntries(Object.entries(value as Json).map(([name, sub]) => [name, tidy(sub, io)])) : tidy(value, io);
  }
  if (io === 'input' && out.format === 'date-time' && out.type === 'string') return { ...out, tsType: 'string | Date' };
  return out;
}

function schemaOf(shapes: Record<string, z.ZodType>, io: 'input' | 'output'): { properties: Json; defs: Json } {
  const json = z.toJSONSchema(z.object(shapes), { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
  const cleaned = tidy(json, io) as Json;
  return { properties: cleaned.properties as Json, defs: (cleaned.$defs ?? {}) as Json };
}

const isVoid = (schema: z.ZodType | undefined) => !schema || ['void', 'undefined'].includes((schema as unknown as { def: { type: string } }).def.type);

async function render(): Promise<string> {
  const list = procedures();
  const inputs: Record<string, z.ZodType> = {};
  const outputs: Record<string, z.ZodType> = { ProjectEvent: ActivitySchema };
  for (const [path, def] of list) {
    const input = def.inputs[0];
    if (!isVoid(input)) inputs[path] = input!;
    if (def.output) outputs[path] = def.output;
  }
  const inSchema = schemaOf(inputs, 'input');
  const outSchema = schemaOf(outputs, 'output');
  // A named schema reads the same on both sides unless it transforms; those get an `Input` twin.
  const defs: Json = { ...outSchema.defs };
  const renamed = new Map<string, string>();
  for (const [name, def] of Object.entries(inSchema.defs)) {
    if (!(name in defs) || JSON.stringify(defs[name]) === JSON.stringify(def)) defs[name] = def;
    else {
      renamed.set(`#/$defs/${name}`, `#/$defs/${name}Input`);
      defs[`${name}Input`] = def;
    }
  }
  const inputRefs = JSON.parse(JSON.stringify(inSchema), (key, value: unknown) => (key === '$ref' && typeof value === 'string' ? (renamed.get(value) ?? value) : value)) as typeof inSchema;
  for (const [name, def] of Object.entries(defs)) (def as Json).title = name;
  // A status is any state key of the task's project; the keys every project starts with are named,
  // so editors complete them (`(string & {})` keeps the union from collapsing to `string`).
  if (defs.TaskStatus) (defs.TaskStatus as Json).tsType = [...DEFAULT_STATES.map(({ key }) => `'${key}'`), '(string & {})'].join(' | ');
  const voidInputs = list.filter(([path]) => !(path in inputs)).map(([path]) => path);
  const root = {
    title: 'Api',
    type: 'object',
    additionalProperties: false,
    properties: {
      inputs: { title: 'ProcedureInputs', type: 'object', additionalProperties: false, properties: inputRefs.properties, required: Object.keys(inputRefs.properties) },
      outputs: { title: 'ProcedureOutputs', type: 'object', additionalProperties: false, properties: outSchema.properties, required: Object.keys(outSchema.properties) },
    },
    required: ['inputs', 'outputs'],
    $defs: defs,
  };
  const types = await compile(root as JSONSchema, 'Api', {
    bannerComment: '',
    additionalProperties: false,
    declareExternallyReferenced: true,
    enableConstEnums: false,
    strictIndexSignatures: true,
    unknownAny: true,
    format: true,
    ignoreMinAndMaxItems: true,
  });
  const kinds = Object.fromEntries(list.map(([path, def]) => [path, def.type]));
  return [
    '// Generated by `pnpm --filter @tasklane/sdk generate` from the server\'s router and @tasklane/schemas. Do not edit.',
    '/* eslint-disable */',
    types.replace(/^export interface Api \{[\s\S]*?\n\}\n/m, ''),
    `/** Procedures that take no input. */\nexport type VoidInputPath = ${voidInputs.map((p) => `'${p}'`).join(' | ') || 'never'};`,
    `/** Every procedure of the server's router and its kind. */\nexport const PROCEDURE_KINDS = ${JSON.stringify(kinds, null, 2)} as const;`,
    `/** Every \`reason\` the server gives, as in @tasklane/schemas. */\nexport const ERROR_REASONS = ${JSON.stringify(ERROR_REASONS, null, 2)} as const;`,
    '',
  ].join('\n\n');
}

const text = await render();
if (process.argv.includes('--check')) {
  const current = await readFile(target, 'utf8').catch(() => '');
  if (current !== text) {
    console.error('src/generated/api.ts is stale: run `pnpm --filter @tasklane/sdk generate`');
    process.exit(1);
  }
} else {
  await writeFile(target, text);
}
