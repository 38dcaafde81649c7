import { ConfigError } from '../../errors.ts';

/** `{K: v}` as Docker's `["K=v"]`, rejecting names and values that cannot be environment variables. */
export function toEnvList(env: Readonly<Record<string, string>> | undefined, what: string): string[] {
  return Object.entries(env ?? {}).map(([key, value]) => {
    if (!/^[^=\0]+$/.test(key)) {
      throw new ConfigError(
        `${what}: environment variable name ${JSON.stringify(key)} is empty or has "=" or NUL`,
      );
    }
    if (typeof value !== 'string' || value.includes('\0')) {
      throw new ConfigError(`${what}: environment variable ${key} must be a string without NUL bytes`);
    }
    return `${key}=${value}`;
  });
}
