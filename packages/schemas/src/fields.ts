import { z } from 'zod';
import { IdRefSchema, IdSchema, PathIdSchema, TimestampSchema, trimmed } from './common';
import { ColorSchema } from './labels';
import { FIELD_TYPES, FIELD_NAME_MAX, FIELD_OPTION_NAME_MAX } from './constants';

export { FIELD_TYPES, FIELD_NAME_MAX, FIELD_OPTION_NAME_MAX, FIELD_TEXT_MAX, FIELD_URL_MAX, DEFAULT_OPTION_COLOR } from './constants';

/** The most custom fields a project has (409 FIELD_LIMIT). */
export const FIELDS_MAX = 50;
/** The most options a select or multi_select field has. */
export const FIELD_OPTIONS_MAX = 100;

export const FieldTypeSchema = z.enum(FIELD_TYPES).meta({ id: 'FieldType' });

export const FieldOptionSchema = z
  .object({
    id: IdSchema,
    name: z.string(),
    color: z.string().meta({ description: '`#rrggbb`, lower case', example: '#2563eb' }),
  })
  .meta({ id: 'FieldOption' });

export const FieldSchema = z
  .object({
    id: IdSchema,
    projectId: IdSchema,
    name: z.string(),
    type: FieldTypeSchema,
    options: z.array(FieldOptionSchema).meta({ description: 'The choices of a `select` or `multi_select` field, in order; empty for the other types' }),
    position: z.number().int().meta({ description: "The field's place among the project's fields: 0, 1, 2 … without gaps" }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .meta({ id: 'Field' });

/**
 * A task's value of a field, by the field's type: text, url, date (`YYYY-MM-DD`), user (a member's
 * id) and select (an option's id) a string; number a number; checkbox a boolean; multi_select an
 * array of option ids.
 */
export const FieldValueSchema = z
  .union([z.string(), z.number(), z.boolean(), z.array(z.string())])
  .meta({ id: 'FieldValue', description: "A value of the field's type: a string (text, url, date `YYYY-MM-DD`, user id, select option id), a number, a boolean (checkbox) or an array of option ids (multi_select)" });

/**
 * The `fields` of a task write: field id to value, merged into the task's (null clears a field).
 * Each value is checked against its field's type by the server (400 with the path
 * `["fields", "<fieldId>"]`), so the schema takes any JSON value here.
 */
export const TaskFieldsInput = z
  .record(IdRefSchema, FieldValueSchema.nullable())
  .refine((fields) => Object.keys(fields).length <= FIELDS_MAX, { error: `fields names at most ${FIELDS_MAX} fields` })
  .meta({
    description: "Custom field values by field id (GET /projects/{id}/fields), merged into the task's: a field set to null is cleared, the others keep their values",
    example: { '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b': 3 },
  });

const FieldNameSchema = trimmed(1, FIELD_NAME_MAX).meta({ description: `1–${FIELD_NAME_MAX} characters, unique in the project regardless of case`, example: 'Customer' });
const OptionNameSchema = trimmed(1, FIELD_OPTION_NAME_MAX);

/** An option as a create gives it: its name, and a colour. */
const NewOptionSchema = z.object({ name: OptionNameSchema, color: ColorSchema.optional() }).strict();

/** An option as a PATCH gives it: with the id of one the field has (kept, renamed or recoloured), or without (a new one). */
const OptionChangeSchema = z
  .object({
    id: IdRefSchema.optional().meta({ description: "An option of the field (kept); absent: a new option" }),
    name: OptionNameSchema,
    color: ColorSchema.optional(),
  })
  .strict();

const pathIds = { id: PathIdSchema, fieldId: PathIdSchema };

export const CreateFieldInput = z
  .object({
    id: PathIdSchema,
    name: FieldNameSchema,
    type: FieldTypeSchema,
    options: z
      .array(NewOptionSchema)
      .max(FIELD_OPTIONS_MAX, { error: `options lists at most ${FIELD_OPTIONS_MAX} options` })
      .optional()
      .meta({ description: `The choices of a select or multi_select field (at most ${FIELD_OPTIONS_MAX}, names unique), given by name; each gets an id. Only for those types.` }),
  })
  .strict()
  .meta({ examples: [{ name: 'Customer tier', type: 'select', options: [{ name: 'Gold', color: '#f59e0b' }, { name: 'Silver' }] }, { name: 'Story points', type: 'number' }] });

export const UpdateFieldInput = z
  .object({
    ...pathIds,
    name: FieldNameSchema.optional(),
    position: z
      .number()
      .int()
      .min(0)
      .max(FIELDS_MAX - 1)
      .optional()
      .meta({ description: 'The new place among the fields (0 first); those in between shift by one. Past the last place: the last.' }),
    options: z
      .array(OptionChangeSchema)
      .max(FIELD_OPTIONS_MAX, { error: `options lists at most ${FIELD_OPTIONS_MAX} options` })
      .optional()
      .meta({ description: "The field's options, all of them, in order: one with an id keeps that option (its name and colour as given), one without is new, and an option left out is deleted and cleared from every task" }),
  })
  .strict()
  .meta({ examples: [{ name: 'Tier' }, { position: 0 }] });

export const FieldPathInput = z.object(pathIds).strict();
export const ListFieldsInput = z.object({ id: PathIdSchema }).strict();

export type FieldType = z.infer<typeof FieldTypeSchema>;
export type FieldOption = z.infer<typeof FieldOptionSchema>;
export type Field = z.infer<typeof FieldSchema>;
export type FieldValue = z.infer<typeof FieldValueSchema>;
export type CreateFieldInput = z.infer<typeof CreateFieldInput>;
export type UpdateFieldInput = z.infer<typeof UpdateFieldInput>;
export type FieldPathInput = z.infer<typeof FieldPathInput>;
export type ListFieldsInput = z.infer<typeof ListFieldsInput>;

/** A field's query key in a task list: `field.<id>` (equality), `field.<id>.gte`, `field.<id>.lte`. */
export const FIELD_FILTER_KEY = /^field\.([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:\.(gte|lte))?$/;
/** A sort by a field: `field.<id>` or `-field.<id>`. */
export const FIELD_SORT = /^-?field\.([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;
