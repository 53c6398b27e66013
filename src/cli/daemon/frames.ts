/**
 * The daemon's wire format on its Unix socket: frames of [4-byte length][1-byte kind][payload].
 * Text travels as bytes (the exact bytes the command wrote), control messages as JSON.
 *
 *   client -> daemon   request  {args, cwd, env, terminals, fingerprint} | {op: 'status' | 'stop'}
 *                      stdin    the client's stdin, sent when the daemon asks for it
 *                      stdinError {code, message}: stdin could not be read (over the cap)
 *                      printed {} | {code, message}: the output so far was written (or not)
 *   daemon -> client   accepted {pid}, stdout and stderr bytes, done {exitCode};
 *                      needStdin: the command reads stdin (drop the output so far, send stdin,
 *                      it runs again); print: write the output so far now and say how it went
 *                      (session memory records a read only once it reached the reader);
 *                      refused {reason}: the client works in process;
 *                      info {...}: the answer to status and stop
 */
import type { Socket } from 'node:net';

export const FRAME = {
  request: 0x71, // q
  stdin: 0x69, // i
  stdinError: 0x78, // x
  printed: 0x50, // P
  accepted: 0x61, // a
  needStdin: 0x6e, // n
  print: 0x70, // p
  stdout: 0x6f, // o
  stderr: 0x65, // e
  done: 0x64, // d
  refused: 0x72, // r
  info: 0x73, // s
} as const;

export interface Frame {
  kind: number;
  payload: Buffer;
}

export function encodeFrame(kind: number, payload: Buffer | string | object): Buffer {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload), 'utf8');
  const head = Buffer.alloc(5);
  head.writeUInt32BE(body.length + 1, 0);
  head[4] = kind;
  return Buffer.concat([head, body]);
}

/** JSON of a control frame. */
export function jsonOf<T>(frame: Frame): T {
  return JSON.parse(frame.payload.toString('utf8')) as T;
}

/**
 * Calls `onFrame` for each whole frame that arrives on `socket`; a frame over `maxFrameBytes`
 * calls `onOversize` instead and stops reading (the peer is not one of ours, or misbehaves).
 */
export function readFrames(socket: Socket, maxFrameBytes: number, onFrame: (f: Frame) => void, onOversize: () => void): void {
  let chunks: Buffer[] = [];
  let buffered = 0;
  let length: number | undefined; // of the frame being read, once its header is in
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    buffered += chunk.length;
    while (buffered >= 4) {
      if (length === undefined) {
        length = (chunks[0].length >= 4 ? chunks[0] : Buffer.concat(chunks)).readUInt32BE(0);
        if (length < 1 || length > maxFrameBytes) {
          socket.off('data', onData);
          onOversize();
          return;
        }
      }
      if (buffered < 4 + length) return; // joined once it is all here: a big frame is not copied per chunk
      const buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, buffered);
      const frame = { kind: buf[4], payload: buf.subarray(5, 4 + length) };
      const rest = buf.subarray(4 + length);
      chunks = rest.length ? [rest] : [];
      buffered = rest.length;
      length = undefined;
      onFrame(frame);
    }
  };
  socket.on('data', onData);
}
