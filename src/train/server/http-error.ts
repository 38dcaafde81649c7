import { SandgymError } from '../../errors.ts';

/**
 * A request the server answers with an error status; the message becomes the body's `detail`, as
 * FastAPI (and so SkyRL tx) writes it.
 */
export class HttpError extends SandgymError {
  override name = 'HttpError';

  constructor(
    readonly status: number,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message, { isRetryable: status === 408 || status === 429 || status >= 500 });
  }
}
