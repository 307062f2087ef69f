import { z } from 'zod';
import { dateTime, IdRefSchema, IdSchema, PageQueryShape, TimestampSchema, trimmed } from './common';
import { text } from './text';
import { EmailSchema, PasswordSchema } from './auth';

/**
 * A personal access token's scopes, each including the ones before it: `read` (reading only),
 * `write` (plus task and comment writes), `admin` (everything its owner may do).
 */
export const TOKEN_SCOPES = ['read', 'write', 'admin'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];
export const ACCESS_TOKEN_PREFIX = 'tl_pat_';

export const TokenScopeSchema = z.enum(TOKEN_SCOPES).meta({ id: 'TokenScope' });

export const AccessTokenSchema = z
  .object({
    id: IdSchema,
    name: z.string(),
    scopes: z.array(TokenScopeSchema),
    projectIds: z.array(IdSchema).nullable().meta({ description: 'The projects the token reaches; null for every project of its owner' }),
    createdAt: TimestampSchema,
    lastUsedAt: TimestampSchema.nullable().meta({ description: 'Last use, to within a minute; null if never used' }),
    expiresAt: TimestampSchema.nullable().meta({ description: 'Null for a token that does not expire' }),
  })
  .meta({ id: 'AccessToken' });

export const CreatedAccessTokenSchema = AccessTokenSchema.extend({
  token: z.string().meta({ description: 'The token (`tl_pat_…`), shown only in this response; send it as `Authorization: Bearer <token>`' }),
}).meta({ id: 'CreatedAccessToken' });

const isFuture = (value: string) => Date.parse(value) > Date.now();

export const CreateAccessTokenInput = z
  .object({
    name: trimmed(1, 100),
    scopes: z.array(TokenScopeSchema).min(1).max(TOKEN_SCOPES.length),
    projectIds: z
      .array(IdRefSchema)
      .min(1)
      .max(100)
      .optional()
      .meta({ description: 'Limit the token to these projects (others answer 404, as for non-members); every project when left out' }),
    expiresAt: dateTime()
      .refine(isFuture, 'expiresAt must be in the future')
      .optional()
      .meta({ description: 'When the token stops working; never when left out' }),
  })
  .strict()
  .meta({ examples: [{ name: 'CI', scopes: ['write'], expiresAt: '2027-01-01T00:00:00.000Z' }] });

export const ListAccessTokensInput = z.object({ ...PageQueryShape }).strict();

export const SessionSchema = z
  .object({
    id: IdSchema,
    method: z.enum(['password', 'oidc']).meta({ description: 'How the session signed in: password or single sign-on' }),
    createdAt: TimestampSchema,
    lastUsedAt: TimestampSchema.meta({ description: 'Last use, to within a minute' }),
    expiresAt: TimestampSchema,
    userAgent: z.string().nullable(),
    ip: z.string().nullable().meta({ description: 'The client address as the server saw it' }),
    current: z.boolean().meta({ description: 'Whether this is the session of the request' }),
  })
  .meta({ id: 'Session' });

export const ListSessionsInput = z.object({ ...PageQueryShape }).strict();

export const PasswordResetInput = z
  .object({ email: EmailSchema })
  .strict()
  .meta({ examples: [{ email: 'ada@example.com' }] });

export const PasswordResetConfirmInput = z
  .object({
    token: text({ min: 1, max: 200 }).meta({ description: 'The code from the reset link (its `token` parameter)' }),
    password: PasswordSchema,
  })
  .strict()
  .meta({ examples: [{ token: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b.Xy3…', password: 'a new passphrase' }] });

export const AuthProvidersSchema = z
  .object({
    password: z.boolean().meta({ description: 'Whether register and log in with a password are on' }),
    passwordReset: z.boolean().meta({ description: 'Whether "forgot password" can send its email' }),
    oidc: z
      .object({ name: z.string().meta({ description: 'The label for the sign-on button' }) })
      .nullable()
      .meta({ description: 'Single sign-on, when configured; start it at GET /auth/oidc/login' }),
  })
  .meta({ id: 'AuthProviders' });

export const RedirectSchema = z
  .object({ location: z.string().meta({ description: 'Where the Location header points' }) })
  .meta({ id: 'Redirect' });

/** What the provider sends back; anything else it adds is ignored, not refused. */
export const OidcCallbackInput = z
  .looseObject({
    code: text({ max: 4096 }).optional(),
    state: text({ max: 512 }).optional(),
    error: text({ max: 256 }).optional(),
    error_description: text({ max: 2048 }).optional(),
  })
  .meta({ description: 'The parameters of the provider’s redirect' });

export const OidcExchangeInput = z
  .object({ code: text({ min: 1, max: 200 }).meta({ description: 'The `sso` code of the web app’s address after the sign-on' }) })
  .strict()
  .meta({ examples: [{ code: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b.qX3v…' }] });

export type AccessToken = z.infer<typeof AccessTokenSchema>;
export type CreatedAccessToken = z.infer<typeof CreatedAccessTokenSchema>;
export type CreateAccessTokenInput = z.infer<typeof CreateAccessTokenInput>;
export type Session = z.infer<typeof SessionSchema>;
export type AuthProviders = z.infer<typeof AuthProvidersSchema>;
