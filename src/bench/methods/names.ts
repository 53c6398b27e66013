/** Method names accepted by `skim bench --methods` (kept apart so the CLI can list them without loading the methods). */
export const METHOD_NAMES = ['skim', 'heuristic', 'no-repair', 'full', 'head', 'random', 'bm25', 'outline', 'repomix'] as const;
