/**
 * Child side of the parent <-> child protocol: answer {type:'cpu'} with process.cpuUsage(), exit on
 * {type:'stop'} or when the parent goes away.
 */
export function onStopMessage(cleanup: () => void): void {
  const stop = () => {
    try {
      cleanup();
    } finally {
      // process.exit (not a signal) so --cpu-prof gets to write its profile.
      process.exit(0);
    }
  };
  process.on('message', (msg: unknown) => {
    const type = msg && typeof msg === 'object' ? (msg as { type?: unknown }).type : undefined;
    if (type === 'stop') stop();
    else if (type === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ type: 'cpu', micros: user + system });
    }
  });
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
}
