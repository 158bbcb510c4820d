/**
 * How instances tell each other that keys changed: one channel, no payload (each instance reads
 * what changed from the store). The standalone server uses Redis pub/sub when REDIS_URL is set
 * (node/redis-change-notifier.ts); without one, instances find changes by polling every second.
 */
export interface ChangeNotifier {
  /** Announces a change to every subscribed instance (this one included). */
  publish(): Promise<void>;
  /** Calls `listener` on every announced change; resolves once subscribed, to an unsubscribe function. */
  subscribe(listener: () => void): Promise<() => Promise<void>>;
}
