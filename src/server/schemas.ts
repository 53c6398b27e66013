/**
 * Request schemas of the HTTP API (zod). Unknown fields are stripped, not rejected: clients
 * written for SWE-Pruner or for newer skim versions send extra fields.
 */
import { z } from 'zod';
import { isKnownLanguage, LANGUAGES } from '../core/syntax/index.js';

/** Compression ratio: output tokens <= input / ratio, so it must be >= 1. */
const ratio = z.number().finite().min(1);

/** A language name or one of its aliases (py, ts, golang, c++, ...); an unknown one says what is known. */
const language = z
  .string()
  .max(64)
  .refine(isKnownLanguage, {
    error: (issue) => `unknown language ${JSON.stringify(issue.input)}; supported: ${[...LANGUAGES].sort().join(', ')} (or an alias such as py, ts, golang)`,
  });

export const pruneRequestSchema = z.object({
  code: z.string(),
  query: z.string().optional(),
  language: language.optional(),
  path: z.string().max(4096).optional(),
  ratio: ratio.optional(),
  tokens: z.number().int().nonnegative().optional(),
  threshold: z.number().min(0).max(1).optional(),
  relativeThreshold: z.number().min(0).max(1).optional(),
  explain: z.boolean().optional(),
  repair: z.boolean().optional(),
  keepSmall: z.boolean().optional(),
  pinLines: z.array(z.number().int().min(1)).max(100_000).optional(),
  maxChars: z.number().int().nonnegative().optional(),
  task: z.string().optional(),
  firstLine: z.number().int().min(1).optional(),
  window: z.boolean().optional(),
  /** Session memory: requests naming the same session share what they were shown (in order). */
  session: z.string().min(1).max(256).optional(),
});

export type PruneRequestBody = z.infer<typeof pruneRequestSchema>;

export const MAX_BATCH = 64;

export const batchRequestSchema = z.object({
  requests: z.array(pruneRequestSchema).min(1).max(MAX_BATCH),
});

/** SWE-Pruner's server request (hf/prune_wrapper.py PruneRequest). */
export const swePrunerRequestSchema = z.object({
  query: z.string(),
  code: z.string(),
  threshold: z.number().finite().optional(),
  always_keep_first_frags: z.boolean().optional(),
  chunk_overlap_tokens: z.number().optional(),
});

export const rankRequestSchema = z.object({
  query: z.string().min(1),
  documents: z
    .array(
      z.union([
        z.string(),
        z.object({
          id: z.union([z.string(), z.number()]).optional(),
          path: z.string().max(4096).optional(),
          language: language.optional(),
          code: z.string(),
        }),
      ]),
    )
    .min(1)
    .max(MAX_BATCH),
  /** Include each document's pruned text in the answer. */
  includeText: z.boolean().optional(),
  ratio: ratio.optional(),
  threshold: z.number().min(0).max(1).optional(),
});

export type RankRequestBody = z.infer<typeof rankRequestSchema>;

/** One line per problem, e.g. "code: expected string, received undefined". */
export function describeZodError(err: z.ZodError): string {
  return err.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`)
    .join('; ');
}
