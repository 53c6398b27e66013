/** Training constants the command line shows in its help (a module of its own: `skim train --help` does not load the trainer). */

/**
 * How much a kept distractor character costs against a kept gold-file character. In real use most
 * reads are not about the fix: in replay-dev's 1,090 agent reads, the reads without a fix line
 * carry 1.77x the characters of those with one. Weighing both shares alike let a near tie on ~25
 * validation issues pick docPower 1, which keeps half again as much of the unrelated files.
 */
export const DISTRACTOR_WEIGHT = 1.8;
