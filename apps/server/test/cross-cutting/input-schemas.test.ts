import { followsTextRule, isIdSchema, text } from '@tasklane/schemas';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appRouter } from '../../src/transport/trpc/router';

/**
 * An audit of every procedure's input schema, so that a loosely typed field added later fails here:
 * objects are strict; strings follow the text rule (`text()`), are ids (`PathIdSchema`,
 * `IdRefSchema`) or have a format (a date-time, a pattern); numbers are integers with both bounds;
 * arrays have a maximum; nothing is `any`, `unknown`, a record, a union, a custom check or coerced
 * (`z.coerce.boolean()` makes "false" true).
 */

/** The provider's redirect carries parameters of its own, which the callback ignores (docs/api.md). */
const LOOSE_OBJECTS = new Set(['auth.oidc.callback']);

type Def = {
  type: string;
  coerce?: boolean;
  checks?: { _zod: { def: { check: string; format?: string } } }[];
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  element?: z.ZodType;
  in?: z.ZodType;
  format?: string;
};

const defOf = (schema: z.ZodType) => schema._zod.def as unknown as Def;
const checksOf = (schema: z.ZodType) => (defOf(schema).checks ?? []).map((check) => check._zod.def);

/** What is loose in a schema, each as `path: problem`. */
export function loosenesses(schema: z.ZodType, path: string, allowLoose = false): string[] {
  const def = defOf(schema);
  const here = (problem: string) => [`${path || '(input)'}: ${problem}`];
  if (def.coerce) return here(`coerces to ${def.type}`);
  switch (def.type) {
    case 'object': {
      const catchall = def.catchall ? defOf(def.catchall).type : undefined;
      const problems = catchall === 'never' || allowLoose ? [] : here('not strict (unknown fields would pass)');
      return problems.concat(Object.entries(def.shape ?? {}).flatMap(([key, field]) => loosenesses(field, path ? `${path}.${key}` : key)));
    }
    case 'optional':
    case 'nullable':
      return loosenesses(def.innerType!, path);
    case 'pipe':
      return loosenesses(def.in!, path);
    case 'string': {
      if (followsTextRule(schema) || isIdSchema(schema)) return [];
      const formatted = def.format !== undefined || checksOf(schema).some((check) => check.check === 'string_format');
      return formatted ? [] : here('a string that neither follows the text rule (text()) nor is an id or a format');
    }
    case 'number': {
      const checks = checksOf(schema);
      // An integer, or a decimal in fixed steps (multipleOf: an estimate in hundredths).
      const integer = checks.some((check) => (check.check === 'number_format' && /int/.test(check.format ?? '')) || check.check === 'multiple_of') || /int/.test(def.format ?? '');
      const bounded = checks.some((check) => check.check === 'greater_than') && checks.some((check) => check.check === 'less_than');
      return integer && bounded ? [] : here('a number that is not an integer (or in fixed steps) with both bounds');
    }
    case 'array': {
      const bounded = checksOf(schema).some((check) => check.check === 'max_length');
      return (bounded ? [] : here('an array without a maximum length')).concat(loosenesses(def.element!, `${path}[]`));
    }
    case 'boolean':
    case 'enum':
    case 'literal':
      return [];
    default:
      return here(`a ${def.type} schema`);
  }
}

/**
 * Custom fields (issue 36) are typed by the project, not by the schema: a task write's `fields`
 * maps field ids to values, and a list's query takes `field.<fieldId>…` keys (any other key is
 * still refused). The server checks each against its field (400 naming `["fields", id]` or the
 * key: fields.test.ts); these are the only loose spots it allows.
 */
const CUSTOM_FIELD_LOOSENESS: Record<string, string[]> = {
  'tasks.create': ['fields: a record schema'],
  'tasks.update': ['fields: a record schema'],
  'tasks.listForProject': ['(input): not strict (unknown fields would pass)'],
  'tasks.listMine': ['(input): not strict (unknown fields would pass)'],
  // A saved view's filters are a task list's query, custom field filters included.
  'views.create': ['filters: not strict (unknown fields would pass)'],
  'views.update': ['filters: not strict (unknown fields would pass)'],
};

const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { inputs: z.ZodType[] } }>);

describe('the input schemas of every procedure', () => {
  it('finds the procedures and their inputs', () => {
    expect(procedures.length).toBeGreaterThanOrEqual(40);
    expect(procedures.filter(([, procedure]) => procedure._def.inputs.length > 0).length).toBeGreaterThanOrEqual(35);
  });

  for (const [name, procedure] of procedures) {
    it(`${name}: every field exactly typed`, () => {
      const allowed = CUSTOM_FIELD_LOOSENESS[name] ?? [];
      const problems = procedure._def.inputs.flatMap((input) => loosenesses(input, '', LOOSE_OBJECTS.has(name))).filter((problem) => !allowed.includes(problem));
      expect(problems).toEqual([]);
    });
  }

  it('the audit itself catches each kind of loose field', () => {
    const loose = z
      .object({
        anything: z.any(),
        something: z.unknown(),
        flag: z.coerce.boolean(),
        count: z.coerce.number().int().min(1).max(9),
        ratio: z.number(),
        note: z.string().max(10),
        tags: z.array(text({ max: 10 })),
        map: z.record(z.string(), z.string()),
        either: z.union([z.string(), z.number()]),
      })
      .strict();
    expect(loosenesses(loose, '')).toEqual([
      'anything: a any schema',
      'something: a unknown schema',
      'flag: coerces to boolean',
      'count: coerces to number',
      'ratio: a number that is not an integer (or in fixed steps) with both bounds',
      'note: a string that neither follows the text rule (text()) nor is an id or a format',
      'tags: an array without a maximum length',
      'map: a record schema',
      'either: a union schema',
    ]);
    expect(loosenesses(z.object({ name: text({ max: 5 }) }), '')).toEqual(['(input): not strict (unknown fields would pass)']);
  });
});
