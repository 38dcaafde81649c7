import type { SampledSequence, SampleResponse } from '../engine.ts';
import type { WireSampleResponse } from './protocol.ts';
import { TinkerApiError } from './tinker-api-error.ts';

/**
 * An asample result as the engine contract's SampleResponse: exactly `numSamples` sequences, each with
 * a logprob per token (the behaviour policy's, which training needs) and a stop reason of `stop` or
 * `length`.
 */
export function mapSampleResponse(wire: WireSampleResponse, numSamples: number): SampleResponse {
  const sequences = wire?.sequences;
  if (!Array.isArray(sequences) || sequences.length !== numSamples) {
    throw malformed(
      `${Array.isArray(sequences) ? sequences.length : 'no'} sequences for num_samples=${numSamples}`,
    );
  }
  return { type: 'sample', sequences: sequences.map(mapSequence) };
}

function mapSequence(s: WireSampleResponse['sequences'][number], i: number): SampledSequence {
  if (s?.stop_reason !== 'stop' && s?.stop_reason !== 'length') {
    throw malformed(
      `sequence ${i} has stop_reason ${JSON.stringify(s?.stop_reason)}, not "stop" or "length"`,
    );
  }
  if (!Array.isArray(s.tokens) || !s.tokens.every(Number.isInteger)) {
    throw malformed(`sequence ${i} tokens must be integers`);
  }
  if (!Array.isArray(s.logprobs) || s.logprobs.length !== s.tokens.length) {
    throw malformed(`sequence ${i} must carry one logprob per token (training needs the sampler's logprobs)`);
  }
  return { stop_reason: s.stop_reason, tokens: s.tokens, logprobs: s.logprobs };
}

function malformed(problem: string): TinkerApiError {
  return new TinkerApiError(`asample: the server's result does not fit the request: ${problem}`, {
    kind: 'malformed-response',
    endpoint: 'asample',
  });
}
