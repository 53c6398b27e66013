/**
 * The one schema of a prune request (zod). prune() checks every request with it (misuse throws a
 * SkimError 'EUSAGE' before any work); the HTTP API, the MCP tools, `skim prune --batch` lines and
 * the CLI's option values take their fields from it, so a rule (ratio >= 1, one budget, a known
 * language, ...) is written once. Unknown fields are stripped, not rejected: clients written for
 * SWE-Pruner or for newer skim versions send extra fields.
 */
import { z } from 'zod';
import { SkimError } from './errors.js';
import { fileReadOf } from './output/readCommand.js';
import { MIN_FIT_CHARS, OUTPUT_LIMIT_HELP, parseOutputLimit } from './outputLimit.js';
import type { SessionMemory } from './session/memory.js';
import { isKnownLanguage, LANGUAGES } from './syntax/languages.js';
import type { PruneRequest } from './types.js';

/** Compression ratio: output tokens <= input / ratio, so it must be >= 1. */
const ratio = z.number().finite().min(1);
/** A share or probability. */
const unit = z.number().min(0).max(1);
const count = z.number().int().nonnegative();
const lineNumber = z.number().int().min(1);

/** A language name or one of its aliases (py, ts, golang, c++, ...); an unknown one says what is known. */
const language = z
  .string()
  .max(64)
  .refine(isKnownLanguage, {
    error: (issue) => `unknown language ${JSON.stringify(issue.input)}; supported: ${[...LANGUAGES].sort().join(', ')} (or an alias such as py, ts, golang)`,
  });

/** Every field of a request but `session`, with its rule. */
export const REQUEST_FIELDS = {
  code: z.string(),
  query: z.string().optional(),
  language: language.optional(),
  path: z.string().max(4096).optional(),
  ratio: ratio.optional(),
  tokens: count.optional(),
  threshold: unit.optional(),
  relativeThreshold: unit.optional(),
  explain: z.boolean().optional(),
  repair: z.boolean().optional(),
  keepSmall: z.boolean().optional(),
  pinLines: z.array(lineNumber).max(100_000).optional(),
  maxChars: count.optional(),
  task: z.string().optional(),
  firstLine: lineNumber.optional(),
  grepFiles: z.array(z.string().min(1).max(4096)).max(50_000).optional(),
  window: z.boolean().optional(),
  outputLimit: z
    .string()
    .max(64)
    .refine((s) => parseOutputLimit(s) !== null, { error: `must be ${OUTPUT_LIMIT_HELP}` })
    .optional(),
  fitChars: count.refine((n) => n === 0 || n >= MIN_FIT_CHARS, { error: `must be 0 (no fitting) or at least ${MIN_FIT_CHARS}` }).optional(),
};

/** The rules of single values, for other schemas (rank requests, MCP tool arguments) and CLI options. */
export const FIELD_RULES = { ratio, unit, count, lineNumber, language };

/** Budget mode takes one budget. */
const ONE_BUDGET = 'give either `ratio`, `tokens` or `maxChars`, not several';
function oneBudget(r: { ratio?: number; tokens?: number; maxChars?: number }): boolean {
  return [r.ratio, r.tokens, r.maxChars].filter((v) => v !== undefined).length <= 1;
}

/** A session id on the wire (HTTP, batch lines): requests naming the same session share what they were shown. */
export const sessionId = z.string().min(1).max(256);

/**
 * What a client adds to send a command's output instead of a file (HTTP, batch lines): the
 * command that printed `code` and its exit status. A command that reads one file is a read of it
 * (withFileRead); any other request with `command` and no `path` is an output (isOutputRequest)
 * and goes to pruneOutput().
 */
export const OUTPUT_FIELDS = {
  command: z.string().max(100_000).optional(),
  exitCode: z.number().int().nullable().optional(),
};

/** A request as clients send it (HTTP body, a batch line): the session is named by an id. */
export const wireRequestSchema = z.object({ ...REQUEST_FIELDS, ...OUTPUT_FIELDS, session: sessionId.optional() }).refine(oneBudget, { error: ONE_BUDGET });
export type WireRequest = z.infer<typeof wireRequestSchema>;

/** A command's output (`command` given, no file `path`): pruned by pruneOutput(), not prune(). */
export function isOutputRequest(r: { command?: string; path?: string }): boolean {
  return r.command !== undefined && r.path === undefined;
}

/**
 * A request whose `command` reads one file (`cat F`, `nl -ba F`, `sed -n 'a,bp' F`: fileReadOf)
 * as a read of that path, for prune() (the file's syntax, its line numbers, the session's file
 * memory), as the agent-run replay prunes such outputs; any other request as it is.
 */
export function withFileRead<R extends { command?: string; path?: string; firstLine?: number; fitChars?: number }>(r: R): R {
  if (r.command === undefined || r.path !== undefined) return r;
  const read = fileReadOf(r.command);
  if (!read) return r;
  const firstLine = r.firstLine ?? read.firstLine;
  // a window the agent named is left to the harness's head and tail, as pruneToolOutput() leaves it
  return { ...r, path: read.path, ...(firstLine !== undefined ? { firstLine } : {}), ...(read.range ? { fitChars: 0 } : {}) };
}

/** Fields that shape a file prune and mean nothing for an output: a request naming one is refused, not silently ignored. */
const FILE_ONLY_FIELDS = ['ratio', 'tokens', 'maxChars', 'threshold', 'relativeThreshold', 'pinLines', 'firstLine', 'window', 'language', 'fitChars'] as const;

/** A command's output as a client sends it: pruneOutput()'s request without the session. */
export interface OutputWireRequest {
  text: string;
  command: string;
  query?: string;
  task?: string;
  exitCode?: number | null;
  /** What the harness shows of the pruned output: lines it cuts away are not remembered as shown. */
  outputLimit?: string;
}

/** A wire request with `command` as pruneOutput()'s request (without the session); EUSAGE for file-only fields. */
export function outputRequestOf(r: Omit<WireRequest, 'session'>, prefix = 'invalid request: '): OutputWireRequest {
  const bad = FILE_ONLY_FIELDS.filter((k) => r[k] !== undefined);
  if (bad.length) throw new SkimError(`${prefix}${bad.join(', ')}: not for a command's output (a request with "command" and no "path" is one)`, 'EUSAGE');
  return {
    text: r.code,
    command: r.command ?? '',
    query: r.query,
    task: r.task,
    exitCode: r.exitCode,
    outputLimit: r.outputLimit,
  };
}

/** The library's request: the session is a SessionMemory (anything with its methods). */
const isSessionMemory = (v: unknown): v is SessionMemory =>
  typeof v === 'object' && v !== null && typeof (v as SessionMemory).recordShown === 'function' && typeof (v as SessionMemory).noteRead === 'function';
export const pruneRequestSchema = z
  .object({ ...REQUEST_FIELDS, session: z.custom<SessionMemory>(isSessionMemory, { error: 'must be a SessionMemory' }).optional() })
  .refine(oneBudget, { error: ONE_BUDGET });

/** One line per problem, e.g. "code: expected string, received undefined". */
export function describeIssues(err: z.ZodError): string {
  return err.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`)
    .join('; ');
}

/** `value` checked against `schema`: its parsed value, or a SkimError 'EUSAGE' naming each problem after `prefix`. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix = 'invalid request: '): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new SkimError(`${prefix}${describeIssues(r.error)}`, 'EUSAGE');
  return r.data;
}

/** prune()'s check of a request: throws SkimError 'EUSAGE' on misuse; the request itself is used as given. */
export function checkPruneRequest(req: PruneRequest): void {
  if (req === null || typeof req !== 'object') throw new SkimError('invalid request: request must be an object', 'EUSAGE');
  parseWith(pruneRequestSchema, req);
}
