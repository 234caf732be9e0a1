/**
 * Fleet coordination on Redis: several processes of one application act as one client (one
 * token per scope set, one rate budget, one refresh per customer, retries from any process).
 * Imports no Redis client: pass yours (node-redis 4+ or ioredis). See `docs/scaling.md`.
 * @module openbanking-ng/redis
 */
export { redisFleet, type RedisClientLike, type RedisFleetOptions } from './fleet/redis.js';
export { type FleetBucket, type FleetStore, type FleetTake, MemoryFleetStore } from './core/store.js';
