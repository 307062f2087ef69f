/** An operator's mistake or a bad input: printed as one line, no stack, exit code 1. */
export class CliError extends Error {}
