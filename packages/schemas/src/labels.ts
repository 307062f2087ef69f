import { z } from 'zod';
import { IdSchema, PageQueryShape, PathIdSchema, TimestampSchema, trimmed } from './common';
import { LABEL_NAME_MAX, DEFAULT_LABEL_COLOR } from './constants';

export { LABEL_NAME_MAX, DEFAULT_LABEL_COLOR } from './constants';

const pathIds = { id: PathIdSchema, labelId: PathIdSchema };

const LabelNameSchema = trimmed(1, LABEL_NAME_MAX).meta({
  description: `1–${LABEL_NAME_MAX} characters, unique in the project regardless of case (409 LABEL_EXISTS)`,
  example: 'Bug',
});

/** `#rrggbb`; either case is accepted, lower case is stored and returned (labels' and states' colours). */
export const ColorSchema = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, { error: 'color must be #rrggbb (six hexadecimal digits)' })
  .overwrite((color) => color.toLowerCase())
  .meta({ description: '`#rrggbb`, returned in lower case', example: '#d73a4a' });

export const LabelSchema = z
  .object({
    id: IdSchema,
    projectId: IdSchema,
    name: z.string(),
    color: z.string().meta({ description: '`#rrggbb`, lower case', example: '#d73a4a' }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .meta({ id: 'Label' });

export const CreateLabelInput = z
  .object({
    id: PathIdSchema,
    name: LabelNameSchema,
    color: ColorSchema.optional().meta({ description: `\`#rrggbb\` (default ${DEFAULT_LABEL_COLOR})` }),
  })
  .strict()
  .meta({ examples: [{ name: 'Bug', color: '#d73a4a' }] });

export const UpdateLabelInput = z
  .object({ ...pathIds, name: LabelNameSchema.optional(), color: ColorSchema.optional() })
  .strict()
  .meta({ examples: [{ color: '#0e8a16' }] });

export const LabelPathInput = z.object(pathIds).strict();
export const ListLabelsInput = z.object({ id: PathIdSchema, ...PageQueryShape }).strict();

export type Label = z.infer<typeof LabelSchema>;
export type CreateLabelInput = z.infer<typeof CreateLabelInput>;
export type UpdateLabelInput = z.infer<typeof UpdateLabelInput>;
export type LabelPathInput = z.infer<typeof LabelPathInput>;
export type ListLabelsInput = z.infer<typeof ListLabelsInput>;
