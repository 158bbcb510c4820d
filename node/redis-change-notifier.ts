/** Node-only: key-change announcements over Redis pub/sub (a second connection subscribes, as Redis requires). */
import type { Redis } from 'ioredis';
import type { ChangeNotifier } from '../src/control/change-notifier.js';

export function redisChangeNotifier(redis: Redis, channel: string): ChangeNotifier {
  return {
    async publish() {
      await redis.publish(channel, '1');
    },
    async subscribe(listener) {
      const sub = redis.duplicate();
      // Reconnection errors are reported by the main connection's listener; a lost subscriber
      // resubscribes on reconnect (ioredis autoResubscribe) and the poll covers the gap.
      sub.on('error', () => undefined);
      sub.on('message', (ch: string) => {
        if (ch === channel) listener();
      });
      await sub.subscribe(channel);
      return async () => {
        await sub.quit().catch(() => sub.disconnect());
      };
    },
  };
}
