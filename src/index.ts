export { createGateway, type Gateway } from './gateway.js';
export type { GatewayOptions, HandleContext } from './runtime.js';
export type { Principal } from './auth/principal.js';
export { ConfigError, defineConfig, parseConfig, parseConfigText, interpolateEnv } from './config/load.js';
export type { GatewayConfig, GatewayConfigInput, ProviderConfig, ModelConfig, KeyConfig } from './config/schema.js';
export { embeddedDefault } from './config/defaults.js';
export { GatewayError, type GatewayErrorCode } from './errors.js';
export type { GatewayHooks, RequestEvent, ResponseEvent } from './observability/hooks.js';
export type * from './ir/types.js';
