/**
 * Attach a hono app to a node HTTP server and shut it down gracefully: stop accepting, let
 * in-flight requests finish (bounded), then close idle keep-alive sockets.
 */

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import type { Hono } from 'hono';

export interface Listening {
  url: string;
  port: number;
  server: ServerType;
  /** Graceful close: waits for in-flight requests up to `graceMs`, then drops what is left. */
  close(graceMs?: number): Promise<void>;
}

export function listen(app: Hono, host: string, port: number): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        port: info.port,
        server,
        close: (graceMs = 5000) => closeGracefully(server as Server, graceMs),
      });
    });
    server.once('error', reject);
  });
}

function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const hardStop = setTimeout(() => server.closeAllConnections(), graceMs);
    // Keep-alive sockets hold close() open: drop each one as soon as its last response is out.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearTimeout(hardStop);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
