import type { Datum, TensorData } from './engine.ts';
import { EngineInputError } from './errors.ts';

/** One datum, checked and flattened for an engine: all arrays have one entry per input position. */
export interface ParsedDatum {
  inputTokens_T: Int32Array;
  targetTokens_T: Int32Array;
  weights_T?: Float32Array;
  logprobs_T?: Float32Array;
  advantages_T?: Float32Array;
}

/** Checks a Tinker Datum against the model's vocabulary and context and flattens it. */
export function parseDatum(datum: Datum, index: number, vocabSize: number, maxSeqLen: number): ParsedDatum {
  const where = `datum ${index}`;
  const chunks = datum?.model_input?.chunks;
  if (!Array.isArray(chunks)) throw new EngineInputError(`${where}: model_input.chunks must be an array`);
  const tokens: number[] = [];
  for (const chunk of chunks) {
    if (chunk?.type !== 'encoded_text') {
      throw new EngineInputError(`${where}: only "encoded_text" chunks are supported, got "${chunk?.type}"`);
    }
    for (const t of chunk.tokens) tokens.push(t);
  }
  const T = tokens.length;
  if (T === 0) throw new EngineInputError(`${where}: model_input has no tokens`);
  if (T > maxSeqLen) {
    throw new EngineInputError(
      `${where}: ${T} input tokens exceed the model's context of ${maxSeqLen}; truncate it`,
    );
  }
  const inputs = datum.loss_fn_inputs;
  if (!inputs?.target_tokens)
    throw new EngineInputError(`${where}: loss_fn_inputs.target_tokens is required`);
  const parsed: ParsedDatum = {
    inputTokens_T: checkTokens(tokens, `${where} model_input`, vocabSize),
    targetTokens_T: checkTokens(
      tensorValues(inputs.target_tokens, T, 'int64', `${where} target_tokens`),
      `${where} target_tokens`,
      vocabSize,
    ),
  };
  if (inputs.weights)
    parsed.weights_T = Float32Array.from(tensorValues(inputs.weights, T, 'float32', `${where} weights`));
  if (inputs.logprobs)
    parsed.logprobs_T = Float32Array.from(tensorValues(inputs.logprobs, T, 'float32', `${where} logprobs`));
  if (inputs.advantages) {
    parsed.advantages_T = Float32Array.from(
      tensorValues(inputs.advantages, T, 'float32', `${where} advantages`),
    );
  }
  return parsed;
}

function tensorValues(t: TensorData, length: number, dtype: TensorData['dtype'], what: string): number[] {
  if (!Array.isArray(t?.data)) throw new EngineInputError(`${what}: TensorData.data must be an array`);
  if (t.dtype !== dtype) throw new EngineInputError(`${what}: dtype must be "${dtype}", got "${t.dtype}"`);
  if (t.shape && (t.shape.length !== 1 || t.shape[0] !== t.data.length)) {
    throw new EngineInputError(
      `${what}: shape [${t.shape.join(', ')}] must be [${t.data.length}] (one value per position)`,
    );
  }
  if (t.data.length !== length) {
    throw new EngineInputError(
      `${what}: has ${t.data.length} values but model_input has ${length} tokens; they must align`,
    );
  }
  for (const v of t.data) {
    if (typeof v !== 'number' || !Number.isFinite(v))
      throw new EngineInputError(`${what}: contains a non-finite value`);
  }
  return t.data;
}

function checkTokens(tokens: number[], what: string, vocabSize: number): Int32Array {
  for (const t of tokens) {
    if (!Number.isInteger(t) || t < 0 || t >= vocabSize) {
      throw new EngineInputError(`${what}: token ${t} is outside the vocabulary [0, ${vocabSize})`);
    }
  }
  return Int32Array.from(tokens);
}
