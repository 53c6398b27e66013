/** Server limits by default (a module of its own: `skim serve --help` shows them without loading the server). */
export const DEFAULTS = {
  maxBodyBytes: 8 * 1024 * 1024,
  timeoutMs: 10_000,
  maxConcurrent: 2,
  maxQueue: 64,
};

/**
 * The header that names a client: sessions are kept per client, this key, else the client's
 * address (`skim show --client` sends it too).
 */
export const CLIENT_KEY_HEADER = 'x-skim-client';
