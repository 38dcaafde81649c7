import { ConfigError } from '../errors.ts';

/**
 * Token-level scores of one response for an outcome reward R (verl `token_level_scores`, rLLM
 * `token_level_scores[i, len − 1] = R`): R on the last model token (mask 1), 0 elsewhere. In an
 * untruncated episode that is the last response token, as rLLM; when truncation ends the response in
 * an observation, the last model token keeps the reward where GAE and REINFORCE++, which skip mask-0
 * tokens, can see it. A response with no model token (an invalid trajectory) carries R on its last token.
 */
export function placeOutcomeReward(responseMask: readonly number[], reward: number): number[] {
  if (responseMask.length === 0) {
    throw new ConfigError(
      'placeOutcomeReward: the response is empty, so there is no token to carry the reward',
    );
  }
  const lastModelToken = responseMask.lastIndexOf(1);
  const position = lastModelToken >= 0 ? lastModelToken : responseMask.length - 1;
  return responseMask.map((_, t) => (t === position ? reward : 0));
}
