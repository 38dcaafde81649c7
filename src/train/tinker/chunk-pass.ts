import type { Datum } from '../engine.ts';
import type { WireForwardBackwardOutput } from './protocol.ts';

/** The SDK's defaults for one forward_backward request (ClientConfigResponse), when a server says none. */
export const CHUNK_DEFAULTS = { maxDatums: 1024, maxBytes: 5_000_000 };

/**
 * Splits a batch into requests the server takes: at most `maxDatums` data and about `maxBytes` of JSON
 * each, in order. A datum larger than `maxBytes` goes alone. Gradients of a forward_backward accumulate
 * until optim_step and the Tinker losses are sums, so the chunks together train as the whole batch.
 */
export function chunkData(data: Datum[], limits = CHUNK_DEFAULTS): Datum[][] {
  const chunks: Datum[][] = [];
  let current: Datum[] = [];
  let bytes = 0;
  for (const datum of data) {
    const size = JSON.stringify(datum).length;
    if (current.length > 0 && (current.length >= limits.maxDatums || bytes + size > limits.maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(datum);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * The chunks' results as one: outputs in order; metrics by their reduction suffix (`:sum` added,
 * `:mean` weighted by data, `:max`/`:min` kept extreme, others the last chunk's).
 */
export function mergePassOutputs(
  parts: { wire: WireForwardBackwardOutput; data: number }[],
): WireForwardBackwardOutput {
  if (parts.length === 1) return parts[0]!.wire;
  const total = parts.reduce((n, p) => n + p.data, 0);
  const metrics: Record<string, number> = {};
  for (const { wire, data } of parts) {
    for (const [name, value] of Object.entries(wire?.metrics ?? {})) {
      if (typeof value !== 'number') continue;
      const had = metrics[name];
      if (name.endsWith(':sum')) metrics[name] = (had ?? 0) + value;
      else if (name.endsWith(':mean')) metrics[name] = (had ?? 0) + (value * data) / total;
      else if (name.endsWith(':max')) metrics[name] = Math.max(had ?? -Infinity, value);
      else if (name.endsWith(':min')) metrics[name] = Math.min(had ?? Infinity, value);
      else metrics[name] = value;
    }
  }
  return {
    loss_fn_output_type: parts[0]!.wire?.loss_fn_output_type,
    loss_fn_outputs: parts.flatMap((p) => p.wire?.loss_fn_outputs ?? []),
    metrics,
  };
}
