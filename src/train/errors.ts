import { SandgymError } from '../errors.ts';

/** A request to a training engine that cannot be served as given (bad datum, unknown loss, bad params). */
export class EngineInputError extends SandgymError {
  override name = 'EngineInputError';
}

/** A checkpoint directory that is missing, incomplete, or made for another model. */
export class CheckpointError extends SandgymError {
  override name = 'CheckpointError';
}

export function isEngineInputError(e: unknown): e is EngineInputError {
  return e instanceof EngineInputError;
}
