/**
 * Preloaded (`node --import`) into Portkey's own start script (build/start-server.js), which binds
 * every interface on a fixed port and exports nothing. This file, not Portkey's code, makes it a
 * benchmark child like the others:
 * - its server listens on 127.0.0.1 only (the bench never serves beyond loopback); port 0 = ephemeral;
 * - it tells the parent its URL over IPC ({type:'ready', url}) once listening;
 * - it answers {type:'cpu'} / {type:'mem'} and exits on {type:'stop'} (same protocol as child-ipc.ts);
 * - console.clear() is a no-op (Portkey clears the terminal on start, which would wipe the bench log).
 */
import net from 'node:net';

console.clear = () => {};

const originalListen = net.Server.prototype.listen;
let announced = false;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  // Hono's serve() calls listen(port, hostname, cb) with hostname undefined: force loopback.
  if (typeof args[0] === 'number' && (args[1] === undefined || typeof args[1] === 'function')) {
    if (args[1] === undefined) args[1] = '127.0.0.1';
    else args.splice(1, 0, '127.0.0.1');
  } else if (args[0] && typeof args[0] === 'object' && !args[0].host && !args[0].path) {
    args[0] = { ...args[0], host: '127.0.0.1' };
  }
  this.once('listening', () => {
    const address = this.address();
    if (announced || !address || typeof address !== 'object') return;
    announced = true;
    process.send?.({ type: 'ready', url: `http://127.0.0.1:${address.port}` });
  });
  return originalListen.apply(this, args);
};

const stop = () => process.exit(0);
process.on('message', (msg) => {
  const type = msg && typeof msg === 'object' ? msg.type : undefined;
  if (type === 'stop') stop();
  else if (type === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ type: 'cpu', micros: user + system });
  } else if (type === 'mem') process.send?.({ type: 'mem', rss: process.memoryUsage().rss });
});
process.on('disconnect', stop);
process.on('SIGTERM', stop);
