/**
 * The two node:http hosts of the HTTP-edge tests, with the server object at hand (the raw tests
 * look at its sockets): `serve()` at the root, and Express with the gateway mounted under /ai.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import express from 'express';
import { modelgate } from '../../adapters/express.js';
import { serve, type NodeBridgeOptions, type ServeOptions } from '../../node/index.js';
import { createGateway, type Gateway, type GatewayConfigInput } from '../../src/index.js';

export type EdgeHostName = 'node' | 'express';
export const EDGE_HOSTS: readonly EdgeHostName[] = ['node', 'express'];

export interface EdgeHost {
  name: EdgeHostName;
  port: number;
  /** Mount path: '' for serve(), '/ai' for Express. */
  base: string;
  /** origin + base */
  url: string;
  server: Server;
  gateway: Gateway;
  /** The server side of a client connection, by the client's local port. */
  serverSocket(clientPort: number): Socket | undefined;
  stop(): Promise<void>;
}

type BridgeOptions = Pick<NodeBridgeOptions, 'maxBodyBytes' | 'bodyIdleTimeoutMs'>;

export async function startEdgeHost(name: EdgeHostName, config: GatewayConfigInput, bridge: BridgeOptions = {}, serveOptions: ServeOptions = {}): Promise<EdgeHost> {
  const gateway = createGateway(config);
  let server: Server;
  let base = '';
  if (name === 'node') {
    server = (await serve(gateway, { ...serveOptions, ...bridge, port: 0, host: '127.0.0.1' })).server;
  } else {
    base = '/ai';
    const app = express();
    app.use(base, modelgate(gateway, bridge));
    app.use((_req, res) => void res.status(404).json({ host404: true }));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  }
  // By the client's port, taken at connect time (a closed socket no longer knows its peer).
  const sockets = new Map<number, Socket>();
  server.on('connection', (s: Socket) => void sockets.set(s.remotePort ?? 0, s));
  const port = (server.address() as AddressInfo).port;
  return {
    name,
    port,
    base,
    url: `http://127.0.0.1:${port}${base}`,
    server,
    gateway,
    serverSocket: (clientPort) => sockets.get(clientPort),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await gateway.close();
    },
  };
}
