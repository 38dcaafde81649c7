import type { ParsedDatum } from '../datum.ts';
import type { ForwardBackwardOutput, LossFnConfig, LossFnType, TensorData } from '../engine.ts';
import { evaluateLoss } from '../loss-fns.ts';
import type { WireForwardBackwardOutput } from './protocol.ts';
import { TinkerApiError } from './tinker-api-error.ts';

/**
 * A server's forward/forward_backward result as the engine contract's output. Servers differ in what
 * they send beyond per-datum `logprobs`: SkyRL's JAX backend sends `elementwise_loss` and no metrics,
 * hosted Tinker sends `loss:sum` and may omit `elementwise_loss`. What is missing is computed here
 * from the logprobs with the same loss definitions the reference engine uses (loss-fns.ts); what the
 * server sent is kept as it is.
 */
export function mapForwardBackwardOutput(
  wire: WireForwardBackwardOutput,
  data: ParsedDatum[],
  lossFn: LossFnType,
  config: LossFnConfig | undefined,
  endpoint: string,
): ForwardBackwardOutput {
  const outputs = wire?.loss_fn_outputs;
  if (!Array.isArray(outputs) || outputs.length !== data.length) {
    throw malformed(
      endpoint,
      `${Array.isArray(outputs) ? outputs.length : 'no'} loss_fn_outputs for ${data.length} data`,
    );
  }
  let lossSum = 0;
  let tokens = 0;
  let trained = 0;
  let clipped = 0;
  let ratioSum = 0;
  const loss_fn_outputs = outputs.map((out, i) => {
    const T = data[i]!.targetTokens_T.length;
    const logprobs = tensor(out?.logprobs, T, `datum ${i} logprobs`, endpoint);
    const token = evaluateLoss(lossFn, data[i]!, Float32Array.from(logprobs.data), config);
    const loss = out?.elementwise_loss
      ? tensor(out.elementwise_loss, T, `datum ${i} elementwise_loss`, endpoint)
      : floatTensor(Array.from(token.loss_T, Math.fround));
    for (const l of loss.data) lossSum += l;
    tokens += T;
    trained += token.trainedTokens;
    clipped += token.clippedTokens;
    ratioSum += token.ratioSum;
    return { logprobs, elementwise_loss: loss };
  });
  const computed: Record<string, number> = { 'loss:sum': lossSum, 'tokens:sum': tokens };
  if (lossFn !== 'cross_entropy') {
    computed['clip_fraction:mean'] = clipped / Math.max(trained, 1);
    computed['ratio:mean'] = ratioSum / Math.max(trained, 1);
  }
  return {
    loss_fn_output_type: typeof wire.loss_fn_output_type === 'string' ? wire.loss_fn_output_type : lossFn,
    loss_fn_outputs,
    metrics: { ...computed, ...numericEntries(wire.metrics) },
  };
}

function tensor(value: unknown, length: number, what: string, endpoint: string): TensorData {
  const t = value as { data?: unknown } | undefined;
  if (!Array.isArray(t?.data) || t.data.length !== length || !t.data.every((v) => typeof v === 'number')) {
    throw malformed(endpoint, `${what} must be ${length} numbers (one per input position)`);
  }
  return floatTensor(t.data as number[]);
}

function floatTensor(data: number[]): TensorData {
  return { data, dtype: 'float32', shape: [data.length] };
}

function numericEntries(metrics: Record<string, unknown> | undefined): Record<string, number> {
  return Object.fromEntries(Object.entries(metrics ?? {}).filter(([, v]) => typeof v === 'number')) as Record<
    string,
    number
  >;
}

function malformed(endpoint: string, problem: string): TinkerApiError {
  return new TinkerApiError(`${endpoint}: the server's result does not fit the request: ${problem}`, {
    kind: 'malformed-response',
    endpoint,
  });
}
