import { type ParsedDatum, parseDatum } from '../datum.ts';
import type { Datum, LossFnType } from '../engine.ts';
import { EngineInputError } from '../errors.ts';
import { LOSS_FNS } from '../loss-fns.ts';

/**
 * The checks an engine runs on a forward/forward_backward batch (a known loss, tokens in the
 * vocabulary and within the context, aligned tensors, the inputs the loss needs), done where the batch
 * is sent and where it arrives, so a bad batch fails at once, clearly, before any work. `maxSeqLen` 0
 * means unknown.
 */
export function parsePassData(
  data: Datum[],
  lossFn: LossFnType,
  vocabSize: number,
  maxSeqLen: number,
): ParsedDatum[] {
  if (!LOSS_FNS.includes(lossFn)) {
    throw new EngineInputError(`unknown loss_fn "${lossFn}"; use one of ${LOSS_FNS.join(', ')}`);
  }
  return data.map((d, i) => {
    const parsed = parseDatum(d, i, vocabSize, maxSeqLen || Number.MAX_SAFE_INTEGER);
    if (lossFn !== 'cross_entropy' && (!parsed.logprobs_T || !parsed.advantages_T)) {
      throw new EngineInputError(
        `datum ${i}: loss_fn "${lossFn}" needs loss_fn_inputs.logprobs and advantages`,
      );
    }
    return parsed;
  });
}
