import { errorMessage } from '../../errors.ts';
import { parseDatum } from '../datum.ts';
import type { Datum, LossFnType } from '../engine.ts';
import { isEngineInputError } from '../errors.ts';
import type { ModelConfig } from '../reference/index.ts';
import { HttpError } from './http-error.ts';

/**
 * The engine's own checks of a forward/forward_backward batch (tokens in the vocabulary, within the
 * context, tensors aligned, the inputs the loss needs), run when the request arrives so that a bad
 * batch is answered 400 at once rather than as a failed future.
 */
export function checkPassData(endpoint: string, data: Datum[], lossFn: LossFnType, model: ModelConfig): void {
  data.forEach((datum, i) => {
    let parsed: ReturnType<typeof parseDatum>;
    try {
      parsed = parseDatum(datum, i, model.vocab_size, model.n_ctx);
    } catch (e) {
      if (isEngineInputError(e)) throw new HttpError(400, `${endpoint}: ${errorMessage(e)}`);
      throw e;
    }
    if (lossFn !== 'cross_entropy' && (!parsed.logprobs_T || !parsed.advantages_T)) {
      throw new HttpError(
        400,
        `${endpoint}: datum ${i}: loss_fn "${lossFn}" needs loss_fn_inputs.logprobs and advantages`,
      );
    }
  });
}
