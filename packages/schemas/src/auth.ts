import { z } from 'zod';
import { IdSchema, trimmed } from './common';
import { text } from './text';
import { LOCALES } from './constants';

export { isLocale, type Locale, LOCALES } from './constants';

/** bcrypt ignores bytes beyond 72, so longer passwords are refused rather than silently truncated. */
export const PASSWORD_MAX_BYTES = 72;
const utf8 = new TextEncoder();

export const EmailSchema = text({ max: 254, trim: true }).toLowerCase().pipe(z.email());
/**
 * At most 72 bytes on login too: bcrypt would compare only the first 72, so a longer password
 * whose first 72 bytes are right would otherwise log in.
 */
const withinBcryptLimit = (schema: ReturnType<typeof text>) =>
  schema.refine((value) => utf8.encode(value).length <= PASSWORD_MAX_BYTES, {
    message: `Password must be at most ${PASSWORD_MAX_BYTES} bytes of UTF-8`,
  });
export const PasswordSchema = withinBcryptLimit(text({ min: 6, max: PASSWORD_MAX_BYTES }));

export const UserSchema = z
  .object({ id: IdSchema, name: z.string(), email: z.string() })
  .meta({ id: 'User', example: { id: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b', name: 'Ada Lovelace', email: 'ada@example.com' } });

export const LocaleSchema = z.enum(LOCALES).meta({ description: 'A language of the web app and the emails: en, de, fr, es or ja' });

/** The signed-in user, with what only they see of themselves. */
export const MeSchema = UserSchema.extend({
  locale: LocaleSchema.nullable().meta({ description: "The language chosen for the web app and emails; null: the browser's (emails in English)" }),
}).meta({ id: 'Me', example: { id: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b', name: 'Ada Lovelace', email: 'ada@example.com', locale: 'de' } });

export const RegisterInput = z
  .object({ name: trimmed(1, 200), email: EmailSchema, password: PasswordSchema })
  .strict()
  .meta({ examples: [{ name: 'Ada Lovelace', email: 'ada@example.com', password: 'correct horse' }] });

export const LoginInput = z
  .object({ email: EmailSchema, password: withinBcryptLimit(text({ min: 1, max: PASSWORD_MAX_BYTES })) })
  .strict()
  .meta({ examples: [{ email: 'ada@example.com', password: 'correct horse' }] });

export const TokenSchema = z.object({
  access_token: z.string().meta({ description: 'JWT (HS256) for the Authorization: Bearer header' }),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().meta({ description: 'Seconds until the token expires' }),
});

export const AuthResponseSchema = TokenSchema.extend({ user: UserSchema }).meta({ id: 'AuthResponse' });

export const UpdateMeInput = z
  .object({
    name: trimmed(1, 200).optional(),
    email: EmailSchema.optional(),
    password: PasswordSchema.optional().meta({ description: 'The new password; signs every session out (this one included) and ends earlier reset links; personal access tokens stay' }),
    currentPassword: text({ min: 1, max: 1024 })
      .optional()
      .meta({ description: 'Required to change email or password' }),
    locale: LocaleSchema.nullable().optional().meta({ description: "The language of the web app and emails; null for the browser's" }),
  })
  .strict()
  .superRefine((input, context) => {
    if ((input.email !== undefined || input.password !== undefined) && input.currentPassword === undefined) {
      context.addIssue({ code: 'custom', path: ['currentPassword'], message: 'Required to change email or password' });
    }
  })
  .meta({ examples: [{ name: 'Ada King' }, { locale: 'de' }, { password: 'a new passphrase', currentPassword: 'correct horse' }] });

export type User = z.infer<typeof UserSchema>;
export type Me = z.infer<typeof MeSchema>;
export type RegisterInput = z.infer<typeof RegisterInput>;
export type LoginInput = z.infer<typeof LoginInput>;
export type AuthResponse = z.infer<typeof AuthResponseSchema>;
export type UpdateMeInput = z.infer<typeof UpdateMeInput>;
