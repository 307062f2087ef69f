import { RegisterInput } from '@tasklane/schemas';
import { z } from 'zod';
import type { AuthService } from '../../resources/auth/service';
import { DomainError } from '../../platform/errors';

/**
 * `create-user` and `reset-password`, whoever runs them: the running server for its operator
 * channel (src/transport/operator/server.ts), or the CLI itself when no server holds the data directory. The
 * input is checked here, so both answer a bad one alike. Each returns the line the CLI prints.
 */
const ResetPasswordInput = z.object({ email: z.string(), password: RegisterInput.shape.password });

function parsed<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new DomainError('BAD_REQUEST', result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
}

export const OPERATOR_COMMANDS = {
  async 'create-user'(auth: AuthService, input: unknown): Promise<string> {
    const { user } = await auth.register(parsed(RegisterInput, input));
    return `Created user ${user.email} (${user.id}).`;
  },
  async 'reset-password'(auth: AuthService, input: unknown): Promise<string> {
    const { email, password } = parsed(ResetPasswordInput, input);
    const user = await auth.resetPassword(email, password);
    return `Password of ${user.email} replaced; their sessions are signed out and reset links ended (personal access tokens keep working).`;
  },
};

export type OperatorCommand = keyof typeof OPERATOR_COMMANDS;

export const isOperatorCommand = (command: string): command is OperatorCommand => Object.hasOwn(OPERATOR_COMMANDS, command);
