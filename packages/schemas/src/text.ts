import { z } from 'zod';

/**
 * The one rule for every text field of every input (docs/api.md, "Text"). JSON can carry strings
 * PostgreSQL cannot store as sent: U+0000 (text cannot hold it) and an unpaired UTF-16 surrogate
 * (UTF-8 cannot encode it; drivers replace it with U+FFFD). Such a string is refused with a 400
 * naming the field; any other is stored exactly as sent, except that fields declared `trim` lose
 * leading and trailing Unicode White_Space (not U+FEFF, which is no white space in Unicode, though
 * JavaScript's `trim` removes it). Lengths count Unicode code points, as PostgreSQL's `char_length`
 * and JSON Schema's `maxLength` do, so an emoji outside the BMP counts once.
 */

// A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
// eslint-disable-next-line no-control-regex -- finding U+0000 is the point
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const WHITE_SPACE = /\p{White_Space}/u;

export const UNSTORABLE_TEXT_MESSAGE = 'Text may not contain U+0000 or an unpaired surrogate (\\uD800–\\uDFFF)';

/** Whether PostgreSQL stores the string exactly as sent. */
export const isStorableText = (value: string): boolean => !UNSTORABLE.test(value);

/** Text from elsewhere (an imported file) made storable: U+0000 dropped, an unpaired surrogate made U+FFFD. */
export const storableText = (value: string): string =>
  // eslint-disable-next-line no-control-regex -- dropping U+0000 is the point
  value.replace(/\u0000/g, '').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

/** Leading and trailing Unicode White_Space removed (every such character is in the BMP). */
export function trimWhiteSpace(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && WHITE_SPACE.test(value[start]!)) start += 1;
  while (end > start && WHITE_SPACE.test(value[end - 1]!)) end -= 1;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/** Code points of a string whose surrogates are all paired. */
export function codePointLength(value: string): number {
  let length = value.length;
  for (let index = 0; index < value.length; index += 1) {
    const unit = value.charCodeAt(index);
    if (unit >= 0xdc00 && unit <= 0xdfff) length -= 1;
  }
  return length;
}

/** The check every text schema carries; the schema audit test looks for it (`followsTextRule`). */
function storable(context: z.core.ParsePayload<string>) {
  if (!isStorableText(context.value)) {
    context.issues.push({ code: 'custom', message: UNSTORABLE_TEXT_MESSAGE, input: context.value, continue: false });
  }
}

export interface TextOptions {
  /** Most code points allowed (after trimming). */
  max: number;
  /** Fewest code points required (after trimming); 0 when left out. */
  min?: number;
  /** Remove leading and trailing white space first. */
  trim?: boolean;
}

/** A text field under the one rule. */
export function text({ max, min = 0, trim = false }: TextOptions) {
  const base = trim ? z.string().overwrite(trimWhiteSpace) : z.string();
  return base
    .check(storable)
    .check((context) => {
      const length = codePointLength(context.value);
      if (length < min) {
        context.issues.push({ code: 'too_small', origin: 'string', minimum: min, inclusive: true, input: context.value });
      } else if (length > max) {
        context.issues.push({ code: 'too_big', origin: 'string', maximum: max, inclusive: true, input: context.value });
      }
    })
    .meta({ maxLength: max, ...(min > 0 ? { minLength: min } : {}) });
}

/** Whether a string schema carries the text rule's check. */
export function followsTextRule(schema: z.ZodType): boolean {
  const checks = (schema._zod.def as { checks?: { _zod: { check?: unknown } }[] }).checks ?? [];
  return checks.some((check) => check._zod.check === storable);
}
