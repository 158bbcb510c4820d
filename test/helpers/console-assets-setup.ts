/**
 * vitest globalSetup: the console's assets module (src/console/assets.generated.ts, gitignored) is
 * built from console/ before any suite imports the gateway's sources (`npm ci` builds it too).
 */
import { buildConsoleAssets } from './cli-process.js';

export default function setup(): void {
  buildConsoleAssets();
}
