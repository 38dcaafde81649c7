import { ConfigError } from '../errors.ts';
import { lookupByName } from './registry.ts';
import { assertParam } from './shapes.ts';

/**
 * The KL coefficient β of KL-in-the-reward and how it evolves; verl's `algorithm.kl_ctrl`.
 * `fixed`: β never changes. `adaptive` (Ziegler et al. 2019, arXiv:1909.08593, §2.2):
 *   e = clip(KL_observed / KL_target − 1, −0.2, 0.2),   β ← β · (1 + e · n_steps / horizon)
 */
export type KlControllerState =
  | { readonly type: 'fixed'; readonly coef: number }
  | { readonly type: 'adaptive'; readonly coef: number; readonly targetKl: number; readonly horizon: number };

export interface KlControllerConfig {
  /** `fixed` or `adaptive`. */
  type: string;
  /** Initial β. Default 0.001 (verl `kl_ctrl.kl_coef`). */
  klCoef?: number;
  /** Adaptive only: the KL the controller steers toward. Default 0.1. */
  targetKl?: number;
  /** Adaptive only: samples over which a full 20% correction applies. Default 10000; must be > 0. */
  horizon?: number;
}

const factories: Record<string, (config: KlControllerConfig, coef: number) => KlControllerState> = {
  fixed: (_config, coef) => ({ type: 'fixed', coef }),
  adaptive: (config, coef) => {
    const targetKl = config.targetKl ?? 0.1;
    const horizon = config.horizon ?? 10000;
    assertParam('kl controller "adaptive"', 'targetKl', targetKl, targetKl > 0, '> 0');
    assertParam('kl controller "adaptive"', 'horizon', horizon, horizon > 0, '> 0');
    return { type: 'adaptive', coef, targetKl, horizon };
  },
};

/** The initial state from config; an unknown type throws listing `fixed` and `adaptive`. */
export function createKlController(config: KlControllerConfig): KlControllerState {
  const factory = lookupByName('KL controller type', factories, config.type);
  const coef = config.klCoef ?? 0.001;
  assertParam(`kl controller "${config.type}"`, 'klCoef', coef, coef >= 0, '≥ 0');
  return factory(config, coef);
}

/**
 * The state after one training step that observed `observedKl` (the batch mean of per-sequence mean
 * KL, see `applyKlPenalty`) over `nSteps` samples (verl passes the batch size). Pure: returns a new state.
 */
export function updateKlController(
  state: KlControllerState,
  observedKl: number,
  nSteps: number,
): KlControllerState {
  if (!Number.isFinite(observedKl) || !(nSteps >= 0)) {
    throw new ConfigError(
      `kl controller: cannot update with observedKl ${observedKl} over ${nSteps} steps; ` +
        'pass a finite KL and a non-negative sample count',
    );
  }
  if (state.type === 'fixed') return state;
  const error = Math.min(0.2, Math.max(-0.2, observedKl / state.targetKl - 1));
  return { ...state, coef: state.coef * (1 + (error * nSteps) / state.horizon) };
}
