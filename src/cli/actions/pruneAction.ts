/**
 * `skim prune [FILE|-] --query Q [--ratio N | --tokens N | --threshold T]` and
 * `skim prune --batch IN.jsonl` (one request per line, one result per line, one process).
 */
import { createReadStream, promises as fs } from 'node:fs';
import readline from 'node:readline';
import zlib from 'node:zlib';
import type { Command } from 'commander';
import { z } from 'zod';
import { diagnostic } from '../../core/diagnostics.js';
import { SkimError } from '../../core/errors.js';
import { pruneOutput } from '../../core/output/pruneOutput.js';
import { outputResultJson } from '../../core/output/stored.js';
import type { Pruner } from '../../core/prune.js';
import { FIELD_RULES, isOutputRequest, OUTPUT_FIELDS, outputRequestOf, parseWith, REQUEST_FIELDS, sessionId, withFileRead } from '../../core/request.js';
import { SessionMemory } from '../../core/session/memory.js';
import type { PruneRequest, PruneResult } from '../../core/types.js';
import { decodeInput } from '../../tools/fileTools.js';
import { action, numberOption, type PruneOptionFlags, pruneOptions, prunerFor, readInput, warn, writeOut } from '../io.js';
import { fitCharsOf, outputLimitOf, shownLimitOf, taskOf, withSession } from '../session.js';

interface PruneFlags extends PruneOptionFlags {
  query?: string;
  firstLine?: number;
  threshold?: number;
  language?: string;
  json?: boolean;
  explain?: boolean;
  repair?: boolean;
  batch?: string;
}

export function registerPrune(program: Command): void {
  const prune = program
    .command('prune')
    .description('prune a file or tool output (cat -n, grep -n) for a goal hint')
    .argument('[file]', 'file to prune, or - for stdin');
  pruneOptions(prune, '-q, --query <text>', 'the goal hint: what you need from this code')
    .option('--threshold <p>', 'keep lines whose keep probability >= p (default: the read policy at the calibrated threshold)', numberOption(FIELD_RULES.unit))
    .option('--first-line <n>', 'the input is a window of its file starting at this line (e.g. sed -n 120,180p)', numberOption(FIELD_RULES.lineNumber))
    .option('-l, --language <name>', 'language (default: from the path or content)')
    .option('--json', 'print one JSON object (text, kept, omitted, score, tokensIn, tokensOut, language, ms)')
    .option('--explain', 'show every line with its keep score, gate split and why it was kept')
    .option('--no-repair', 'skip the syntax repair stage (ablation)')
    .option('--batch <file.jsonl>', 'read one request per line ({id, code|path, query, ...}); stream one JSON result per line')
    .action(
      action(async (file: string | undefined, flags: PruneFlags) => {
        if ([flags.ratio, flags.tokens, flags.maxChars].filter((v) => v !== undefined).length > 1)
          throw new SkimError('give one budget: --ratio, --tokens or --max-chars', 'EUSAGE');
        const pruner = prunerFor(flags);
        if (flags.batch) return runBatch(pruner, flags.batch, flags);
        return withSession(flags, (session) => pruneOne(pruner, file, flags, session));
      }),
    );
}

async function pruneOne(pruner: Pruner, file: string | undefined, flags: PruneFlags, session: SessionMemory | undefined): Promise<number> {
  // not valid UTF-8: pruned as Latin-1 text, written back as Latin-1, so kept lines keep their bytes
  const { text: code, encoding, warning } = decodeInput(await readInput(file));
  const req: PruneRequest = {
    code,
    query: flags.query,
    path: file && file !== '-' ? file : undefined,
    language: flags.language,
    ratio: flags.ratio,
    tokens: flags.tokens,
    maxChars: flags.maxChars,
    threshold: flags.threshold,
    explain: flags.explain,
    repair: flags.repair,
    task: taskOf(flags),
    firstLine: flags.firstLine,
    outputLimit: shownLimitOf(flags.json),
    fitChars: fitCharsOf(code.length, { json: flags.json }),
    session,
  };
  const result = withWarning(await pruner.prune(req), warning);
  for (const w of result.warnings) warn(w);
  if (flags.json) await writeOut(JSON.stringify(jsonResult(result, flags.explain)) + '\n');
  else if (flags.explain) await writeOut(renderExplain(code, result), encoding);
  else await writeOut(result.text, encoding);
  return 0;
}

/** The --json shape: the documented fields, plus per-file ranges (numbered/grep input), warnings and (with --explain) per-line scores. */
export function jsonResult(r: PruneResult, explain = false): Record<string, unknown> {
  const out: Record<string, unknown> = {
    text: r.text,
    kept: r.kept,
    omitted: r.omitted,
    score: r.score,
    tokensIn: r.tokensIn,
    tokensOut: r.tokensOut,
    language: r.language,
    ms: r.ms,
  };
  if (r.files) out.files = r.files;
  if (r.scorer) out.scorer = r.scorer;
  if (r.threshold !== undefined) out.threshold = r.threshold;
  if (r.policy) out.policy = r.policy;
  if (r.seenLines) out.seenLines = r.seenLines;
  if (r.warnings.length) out.warnings = r.warnings;
  if (explain && r.explain) out.explain = r.explain;
  return out;
}

/** A result with the input's own warning (decoding) first. */
function withWarning(r: PruneResult, warning: string | undefined): PruneResult {
  return warning ? { ...r, warnings: [warning, ...r.warnings], diagnostics: [diagnostic('invalid-utf8', warning), ...r.diagnostics] } : r;
}

/** A gutter per input line: keep score, semantic-gate share, K(ept)/- and the reason. */
function renderExplain(code: string, r: PruneResult): string {
  const lines = code.split(/\r?\n/);
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  if (!r.explain) return r.text;
  const width = String(lines.length).length;
  let out = `# score = keep probability; gate = semantic share of the rubric mix; K = kept\n`;
  for (const e of r.explain) {
    const gate = e.gateSemantic !== undefined ? e.gateSemantic.toFixed(2) : '  - ';
    const mark = e.kept ? 'K' : '-';
    const why = e.kept ? (e.reason ?? '') : '';
    out += `${formatScore(e.score)} ${gate} ${mark} ${why.padEnd(17)} ${String(e.line).padStart(width)}| ${lines[e.line - 1] ?? ''}\n`;
  }
  const mode =
    r.threshold !== undefined ? `threshold ${formatScore(r.threshold).trim()} (lines scoring below it are dropped)` : 'budget mode (best scores first)';
  out += `# scorer ${r.scorer ?? '?'}; doc score ${r.score}; ${mode}; tokens ${r.tokensIn} -> ${r.tokensOut}; ${r.ms.toFixed(1)} ms\n`;
  return out;
}

/**
 * A score in a 7-character column: 0.712, or 2.54e-3 below 0.01. The learned model's scores are
 * products with the document score, so the calibrated τ and the lines around it are small.
 */
export function formatScore(x: number): string {
  if (x === 0) return '0'.padEnd(7);
  return (x >= 0.01 ? x.toFixed(3) : x.toExponential(2)).padEnd(7);
}

/**
 * A batch line: a request as the HTTP API takes it (the core's wire schema), with `code` or a file
 * `path` to read, and an `id` echoed back; with `command` and no `path`, a command's output. Lines of one session share memory, in file order (in
 * this process only).
 */
const batchLineSchema = z.object({ ...REQUEST_FIELDS, ...OUTPUT_FIELDS, code: REQUEST_FIELDS.code.optional(), id: z.unknown(), session: sessionId.optional() });

async function runBatch(pruner: Pruner, file: string, flags: PruneFlags): Promise<number> {
  try {
    await fs.access(file);
  } catch {
    throw new SkimError(`no such file: ${file}`, 'ENOINPUT');
  }
  let input: NodeJS.ReadableStream = createReadStream(file);
  if (file.endsWith('.gz')) input = input.pipe(zlib.createGunzip());
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  let failures = 0;
  let lineNo = 0;
  const sessions = new Map<string, SessionMemory>();
  for await (const raw of rl) {
    lineNo++;
    if (raw.trim() === '') continue;
    let id: unknown = null;
    try {
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        throw new SkimError(`line ${lineNo}: not valid JSON`, 'EUSAGE');
      }
      id = (json as { id?: unknown } | null)?.id ?? null;
      const req = withFileRead(parseWith(batchLineSchema, json, `line ${lineNo}: `));
      let code = req.code;
      let warning: string | undefined;
      if (code === undefined && req.path !== undefined) ({ text: code, warning } = decodeInput(await readInput(req.path)));
      if (code === undefined) throw new SkimError(`line ${lineNo}: needs "code" or "path"`, 'EUSAGE');
      let session: SessionMemory | undefined;
      if (req.session !== undefined) {
        session = sessions.get(req.session) ?? new SessionMemory();
        sessions.set(req.session, session);
      }
      if (isOutputRequest(req)) {
        // a command's output (`command`, no `path`): pruneOutput with the session's output memory
        const { session: _id, id: _echo, ...fields } = req;
        const out = pruneOutput({
          ...outputRequestOf(
            { ...fields, code, query: fields.query ?? flags.query, task: fields.task ?? taskOf(flags), outputLimit: fields.outputLimit ?? outputLimitOf() },
            `line ${lineNo}: `,
          ),
          memory: session?.outputs,
        });
        await writeOut(JSON.stringify({ id, ...outputResultJson(out) }) + '\n');
        continue;
      }
      const ownBudget = req.ratio !== undefined || req.tokens !== undefined || req.maxChars !== undefined;
      const result = withWarning(
        await pruner.prune({
          code,
          query: req.query ?? flags.query,
          language: req.language ?? flags.language,
          path: req.path,
          ratio: ownBudget ? req.ratio : flags.ratio,
          tokens: ownBudget ? req.tokens : flags.tokens,
          maxChars: ownBudget ? req.maxChars : flags.maxChars,
          threshold: req.threshold ?? flags.threshold,
          explain: req.explain ?? flags.explain,
          repair: req.repair ?? flags.repair,
          task: req.task ?? taskOf(flags),
          firstLine: req.firstLine,
          window: req.window,
          relativeThreshold: req.relativeThreshold,
          keepSmall: req.keepSmall,
          pinLines: req.pinLines,
          outputLimit: req.outputLimit ?? outputLimitOf(),
          fitChars: req.fitChars,
          session,
        }),
        warning,
      );
      await writeOut(JSON.stringify({ id, ...jsonResult(result, req.explain ?? flags.explain) }) + '\n');
    } catch (err) {
      failures++;
      const message = err instanceof SkimError ? err.message : `internal error: ${(err as Error).message}`;
      await writeOut(JSON.stringify({ id, error: message }) + '\n');
    }
  }
  if (failures) warn(`${failures} request(s) failed (see "error" fields)`);
  return failures ? 1 : 0;
}
