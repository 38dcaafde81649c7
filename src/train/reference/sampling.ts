import type { SamplingParams } from '../engine.ts';
import { EngineInputError } from '../errors.ts';
import type { Rng } from './rng.ts';

export interface ResolvedSampling {
  temperature: number;
  topK: number;
  topP: number;
}

export function resolveSampling(p: SamplingParams, vocabSize: number): ResolvedSampling {
  const temperature = p.temperature ?? 1;
  const topP = p.top_p ?? 1;
  const topK = p.top_k === undefined || p.top_k <= 0 ? vocabSize : Math.min(p.top_k, vocabSize);
  if (!(temperature >= 0))
    throw new EngineInputError(`sampling_params.temperature must be ≥ 0, got ${temperature}`);
  if (!(topP > 0 && topP <= 1))
    throw new EngineInputError(`sampling_params.top_p must be in (0, 1], got ${topP}`);
  if (!Number.isInteger(topK))
    throw new EngineInputError(`sampling_params.top_k must be an integer, got ${p.top_k}`);
  return { temperature, topK, topP };
}

/**
 * Draws one token from a row of logits and returns it with its logprob under the distribution it was
 * drawn from: softmax(logits/temperature), cut to the top-k tokens, then to the smallest most-likely set
 * whose mass reaches top_p, renormalized. Temperature 0 is greedy (lowest id on ties) with logprob 0.
 */
export function drawToken(
  logits: Float32Array,
  s: ResolvedSampling,
  rng: Rng,
): { token: number; logprob: number } {
  const V = logits.length;
  if (s.temperature === 0) {
    let best = 0;
    for (let v = 1; v < V; v++) if (logits[v]! > logits[best]!) best = v;
    return { token: best, logprob: 0 };
  }
  let mx = Number.NEGATIVE_INFINITY;
  for (let v = 0; v < V; v++) mx = Math.max(mx, logits[v]!);
  const w = new Float64Array(V);
  for (let v = 0; v < V; v++) w[v] = Math.exp((logits[v]! - mx) / s.temperature);
  const order = candidateOrder(w, s);
  let kept = 0;
  for (const v of order) kept += w[v]!;
  let u = rng.uniform() * kept;
  let token = order[order.length - 1]!;
  for (const v of order) {
    u -= w[v]!;
    if (u < 0) {
      token = v;
      break;
    }
  }
  return { token, logprob: Math.log(w[token]! / kept) };
}

/** The tokens that may be drawn: top-k by weight, then the top-p nucleus of what is left (by id when nothing is cut). */
function candidateOrder(w: Float64Array, s: ResolvedSampling): number[] {
  const V = w.length;
  const all = Array.from({ length: V }, (_, v) => v);
  if (s.topK >= V && s.topP >= 1) return all;
  all.sort((a, b) => w[b]! - w[a]! || a - b);
  const top = all.slice(0, s.topK);
  if (s.topP >= 1) return top;
  const mass = top.reduce((acc, v) => acc + w[v]!, 0);
  let cum = 0;
  for (let i = 0; i < top.length; i++) {
    cum += w[top[i]!]!;
    if (cum >= s.topP * mass) return top.slice(0, i + 1);
  }
  return top;
}
