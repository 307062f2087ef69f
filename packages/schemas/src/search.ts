import { z } from 'zod';
import { IdSchema, PageQueryShape, trimmed } from './common';
import { RelatedTaskSchema } from './relations';

export const SEARCH_QUERY_MAX = 200;
export const SEARCH_KINDS = ['task', 'comment'] as const;

export const SearchInput = z
  .object({
    q: trimmed(1, SEARCH_QUERY_MAX).meta({
      description:
        `1–${SEARCH_QUERY_MAX} characters, web-search syntax: words (all must occur), \`"a phrase"\`, \`or\`, \`-word\` (must not occur); ` +
        'the last bare word also matches as a prefix (`deplo` finds `deploy`); a task key (`ENG-42`, any case) finds that task first',
      example: 'login bug',
    }),
    ...PageQueryShape,
  })
  .strict();

export const SearchHitSchema = z
  .object({
    kind: z.enum(SEARCH_KINDS).meta({ description: '`task`: the task matched (its key, title or description); `comment`: one of its comments did' }),
    task: RelatedTaskSchema,
    commentId: IdSchema.nullable().meta({ description: 'The matching comment, null for a task hit' }),
    snippet: z.string().meta({
      description: 'A short excerpt of the matching text, HTML-escaped, with the matched words in `<mark>…</mark>`',
      example: 'Users cannot <mark>login</mark> after the &lt;b&gt; change',
    }),
    rank: z.number().meta({ description: 'How well it matches, 0–1 (1: the task key); hits come best first', example: 0.0759 }),
  })
  .meta({ id: 'SearchHit' });

export type SearchInput = z.infer<typeof SearchInput>;
export type SearchHit = z.infer<typeof SearchHitSchema>;
