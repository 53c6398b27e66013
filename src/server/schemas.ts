/**
 * Request schemas of the HTTP API (zod), built from the core's request schema (src/core/request.ts):
 * a prune request is the core's wire request; batches, SWE-Pruner's format and rank requests wrap
 * or map it. Unknown fields are stripped, not rejected.
 */
import { z } from 'zod';
import { FIELD_RULES, REQUEST_FIELDS, wireRequestSchema } from '../core/request.js';

export const pruneRequestSchema = wireRequestSchema;
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
          language: FIELD_RULES.language.optional(),
          code: z.string(),
        }),
      ]),
    )
    .min(1)
    .max(MAX_BATCH),
  /** Include each document's pruned text in the answer. */
  includeText: z.boolean().optional(),
  ratio: FIELD_RULES.ratio.optional(),
  threshold: FIELD_RULES.unit.optional(),
});

export type RankRequestBody = z.infer<typeof rankRequestSchema>;

/** POST /v1/sessions/{id}/forget: the file to forget (all of the session without one). */
export const forgetBodySchema = z.object({ path: REQUEST_FIELDS.path });
