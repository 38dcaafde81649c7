/** `sandgym engine serve`: the reference engine behind the Tinker API, on loopback by default. */
export { EngineServer, type EngineServerOptions } from './engine-server.ts';
export type { TinkerServiceOptions } from './tinker-service.ts';
