export { type ParsedDatum, parseDatum } from './datum.ts';
export * from './engine.ts';
export { CheckpointError, EngineInputError, isEngineInputError } from './errors.ts';
export { evaluateLoss, LOSS_FNS, type TokenLosses } from './loss-fns.ts';
export * from './reference/index.ts';
