/**
 * Counters of the pipeline's costly steps, for tests that bound work by counting (a quadratic
 * path shows as counts growing with the square of the input) instead of by the clock. The
 * product never reads them; incrementing a number is all they cost.
 */
export const work = {
  /** Texts given to tree-sitter (parseText). */
  parses: 0,
  /** Characters of those texts. */
  parsedChars: 0,
  /** Pair ranks scanned by byte-pair merging (o200k mergeCount): quadratic in a pre-token's length. */
  bpeSteps: 0,
  /** Characters given to the o200k tokenizer (countO200k): a text counted twice shows here twice. */
  tokenizedChars: 0,
  /** Bytes of HTTP request bodies decoded to text (the server's bodyText): a body read on the main thread shows here. */
  bodyBytesRead: 0,
};

export type WorkCounts = typeof work;

/** The counts so far (a copy). */
export function workSnapshot(): WorkCounts {
  return { ...work };
}

/** What was counted since `before`. */
export function workSince(before: WorkCounts): WorkCounts {
  return {
    parses: work.parses - before.parses,
    parsedChars: work.parsedChars - before.parsedChars,
    bpeSteps: work.bpeSteps - before.bpeSteps,
    tokenizedChars: work.tokenizedChars - before.tokenizedChars,
    bodyBytesRead: work.bodyBytesRead - before.bodyBytesRead,
  };
}
