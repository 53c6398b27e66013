/**
 * Attach a hono app to a node HTTP server and shut it down gracefully: stop accepting, let
 * in-flight requests finish (bounded), then close idle keep-alive sockets. Connections are bounded
 * too: a client must send its headers (and its whole request) in time, an idle keep-alive socket is
 * closed, and there is a cap on open connections, overall and per client address, so that idle
 * sockets cannot take every descriptor (the ones over a cap are closed at once).
 */

import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import type { Hono } from 'hono';

export interface Listening {
  url: string;
  port: number;
  server: ServerType;
  /** Graceful close: waits for in-flight requests up to `graceMs`, then drops what is left. */
  close(graceMs?: number): Promise<void>;
}

export interface ConnectionLimits {
  /** Time to receive a request's headers, from the connection or the previous request (ms). */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included (ms). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this (ms). */
  keepAliveTimeoutMs: number;
  /** How often the server looks for connections past their header or request time (ms). */
  checkEveryMs: number;
  /** Open connections at most, overall. */
  maxConnections: number;
  /** Open connections at most from one client address. */
  maxConnectionsPerClient: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  checkEveryMs: 1_000,
  maxConnections: 4_096,
  maxConnectionsPerClient: 256,
};

export function listen(app: Hono, host: string, port: number, limits: Partial<ConnectionLimits> = {}): Promise<Listening> {
  const l = { ...DEFAULT_CONNECTION_LIMITS, ...limits };
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch: app.fetch,
        hostname: host,
        port,
        serverOptions: {
          // (one check later than the connections' own timers, which close a first request's connection without node's check)
          headersTimeout: Math.min(l.headersTimeoutMs + l.checkEveryMs, l.requestTimeoutMs),
          requestTimeout: l.requestTimeoutMs,
          keepAliveTimeout: l.keepAliveTimeoutMs,
          connectionsCheckingInterval: l.checkEveryMs,
        },
      },
      (info: AddressInfo) => {
        const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
        resolve({
          url: `http://${shownHost}:${info.port}`,
          port: info.port,
          server,
          close: (graceMs = 5000) => closeGracefully(server as Server, graceMs),
        });
      },
    ) as Server;
    capConnections(server, l);
    server.once('error', reject);
  });
}

/** What node answers a request whose headers did not arrive in time. */
const REQUEST_TIMEOUT_RESPONSE = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

/**
 * Close a new connection at once when the server, or its client's address, already holds its cap;
 * and one that has not sent a request's headers by the header time limit: closed silently when it
 * sent nothing (node's own limit counts only from a request's first byte), with a 408 when it sent
 * part of them. Each connection is timed on its own: node's periodic check would find thousands
 * expired at once and, making an error with a stack trace for each, hold the event loop for as
 * long as that takes.
 */
function capConnections(server: Server, l: ConnectionLimits): void {
  const open = new Map<string, number>();
  let total = 0;
  const requested = new WeakSet<Socket>();
  server.on('request', (req: IncomingMessage) => requested.add(req.socket));
  server.on('connection', (socket: Socket) => {
    const client = socket.remoteAddress ?? '';
    const mine = open.get(client) ?? 0;
    if (total >= l.maxConnections || mine >= l.maxConnectionsPerClient) {
      socket.destroy();
      return;
    }
    total++;
    open.set(client, mine + 1);
    const noRequest = setTimeout(() => {
      if (requested.has(socket)) return;
      if (socket.bytesRead > 0) socket.write(REQUEST_TIMEOUT_RESPONSE);
      socket.destroy();
    }, l.headersTimeoutMs);
    noRequest.unref();
    socket.once('close', () => {
      clearTimeout(noRequest);
      total--;
      const n = (open.get(client) ?? 1) - 1;
      if (n > 0) open.set(client, n);
      else open.delete(client);
    });
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
