/**
 * Request bodies to core requests, in one place for the main thread and the worker threads (which
 * read /v1/prune and /prune bodies themselves, so a large body is decoded and parsed under the
 * request's time limit and off the event loop): JSON parsing, validation (zod), the SWE-Pruner
 * mapping. Problems are SkimErrors ('EUSAGE': HTTP 400) with the same wording wherever they are found.
 */
import type { z } from 'zod';
import { SkimError } from '../core/errors.js';
import { isOutputRequest, type OutputWireRequest, outputRequestOf, parseWith, withFileRead } from '../core/request.js';
import type { PruneRequest } from '../core/types.js';
import { work } from '../core/work.js';
import { pruneRequestSchema, swePrunerRequestSchema } from './schemas.js';
import type { AnswerFormat } from './serialize.js';

/** The body as JSON whatever the content type (curl -d sends form-encoded by default). */
export function parseJsonText(text: string): unknown {
  if (text.trim() === '') throw new SkimError('request body is empty; expected a JSON object', 'EUSAGE');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new SkimError(`request body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`, 'EUSAGE');
  }
}

export function validateBody<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  return parseWith(schema, value);
}

/**
 * A SWE-Pruner request as a core request. SWE-Pruner's threshold is on its own score scale (its
 * clients send 0.5 and the like): it maps onto skim's calibrated one, where 0.5 means skim's
 * default operating point. Without one, SWE-Pruner's own default (0.5) applies: a SWE-Pruner client
 * asks for its threshold, not for skim's read policy (which needs the run's session to judge a
 * read). SWE-Pruner keeps the first fragment (the head of the file) when asked.
 */
export function sweToPrune(body: z.infer<typeof swePrunerRequestSchema>): PruneRequest {
  const relativeThreshold = body.threshold !== undefined && body.threshold >= 0 && body.threshold <= 1 ? body.threshold : 0.5;
  const pinLines = body.always_keep_first_frags ? [1] : undefined;
  return { code: body.code, query: body.query, relativeThreshold, explain: true, pinLines };
}

/** A parsed body of /v1/prune (`v1`) or /prune (`swe`) as a core request and the session it names. */
export function requestOf(route: AnswerFormat, value: unknown): { req: PruneRequest; session?: string } {
  if (route === 'swe') return { req: sweToPrune(validateBody(swePrunerRequestSchema, value)) };
  const { session, ...req } = withFileRead(validateBody(pruneRequestSchema, value));
  return session === undefined ? { req } : { req, session };
}

/** UTF-8 bytes of a body as text, as fetch's `text()` reads them (a leading byte order mark dropped). */
export function bodyText(bytes: Uint8Array): string {
  work.bodyBytesRead += bytes.length;
  return new TextDecoder().decode(bytes);
}

/** A /v1/prune body that is a command's output (`command`, no `path`): its request and session; null for anything else. */
export function outputBodyOf(route: AnswerFormat, value: unknown): OutputBody | null {
  if (route !== 'v1') return null;
  const { session, ...body } = withFileRead(validateBody(pruneRequestSchema, value));
  if (!isOutputRequest(body)) return null;
  return session === undefined ? { req: outputRequestOf(body) } : { req: outputRequestOf(body), session };
}

export interface OutputBody {
  req: OutputWireRequest;
  session?: string;
}
