/**
 * `skim mcp`: an MCP server (stdio) with read_file and grep tools confined to a workspace root,
 * whose output is pruned to the agent's goal hint (context_focus_question), and show_output,
 * which expands the markers of pruned command outputs. stdout carries the
 * protocol; everything else goes to stderr.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { SkimError } from '../core/errors.js';
import { fitCharsFor, limitAfter } from '../core/outputLimit.js';
import { FIELD_RULES, REQUEST_FIELDS } from '../core/request.js';
import { SessionMemory } from '../core/session/memory.js';
import { beginSessionRead } from '../tools/sharedSession.js';
import { VERSION } from '../version.js';
import { type PruneFn, stderrLog } from './focus.js';
import { grepTool, MAX_MATCHES } from './grep.js';
import { DEFAULT_LIMIT, readFileTool } from './readFile.js';
import { diskOutputs, SHOW_OUTPUT_DESCRIPTION, showOutputTool } from './showOutput.js';
import { Workspace } from './workspace.js';

const QUESTION_HELP =
  'Goal hint: what you need from this output, as one complete question about the logic, e.g. ' +
  '"How does the session pick a proxy for https URLs, and where are the proxy environment variables read?" ' +
  'Name behaviour and concepts, not file names or line numbers. Lines that do not serve the question are folded ' +
  'into markers like "# ... 37 lines omitted (120-156)"; how hard depends on the read (a session\'s first reads and ' +
  'files you keep coming back to are pruned lightly or not at all, as they are the likeliest to hold what you need). ' +
  'Leave it empty to get the output unpruned: do so for small files or when you need every line (before editing).';

export const READ_FILE_DESCRIPTION =
  'Read a text file in the workspace, numbered like `cat -n` (line number, tab, line). ' +
  `Shows up to ${DEFAULT_LIMIT} lines from \`offset\` (1-based); use offset/limit to read a window of a long file. ` +
  'With context_focus_question, the output is pruned to the lines that answer that question plus what they depend on ' +
  '(imports, enclosing function/class headers, closing brackets); kept lines keep their original numbers. ' +
  'If you need an omitted range "(a-b)", call read_file again with lines="a-b" and no question. ' +
  'Lines this session was already shown, unchanged, are folded into "unchanged since an earlier read (a-b)" markers: they are in your context above ' +
  '(a range you name with lines or offset/limit, without a question, is always shown in full, and so is a read you make again). ' +
  'Paths are relative to the workspace root; nothing outside it can be read.';

const COMPACTED_HELP =
  'Set true when your context was compacted or summarized since earlier reads: the lines this session showed before are shown again instead of folded (until shown anew).';

export const GREP_DESCRIPTION =
  'Search files in the workspace for a regular expression, line by line, like `grep -rn`: ' +
  'each match is printed as "path:line:text". ' +
  'The pattern is RE2 syntax, as in ripgrep and `grep -E` (not basic grep syntax): | ( ) + ? { } [ ] . * ^ $ are operators, ' +
  'so "get_records|clear" matches either name and a literal parenthesis is written \\( ; \\d \\w \\s \\b and (?i) for ignoring case work; ' +
  'no lookaround or back-references; matching is case-sensitive and takes time linear in the line. ' +
  'path is a file or directory (default: the whole workspace); ' +
  'glob filters file names ("*.py", "src/**/*.ts", "*.{js,ts}"). node_modules, .git and binary files are skipped; ' +
  `at most ${MAX_MATCHES} matching lines are returned. ` +
  'With context_focus_question, long results are pruned to the matches that serve the question. ' +
  'Then read_file the relevant file, with a question, to see the surrounding logic.';

export interface McpOptions {
  root: string;
  prune: PruneFn;
  /** A session on disk whose command outputs (kept by `skim run` / `skim out`) show_output can show. */
  session?: string;
  /** What the client shows the model of a long tool result (SKIM_OUTPUT_LIMIT): lines beyond it are not remembered. */
  outputLimit?: string;
  log?: (line: string) => void;
  /** The environment the session stores are named in (SKIM_SESSION_STORE, SKIM_SESSION_DIR); default: this process's. */
  env?: NodeJS.ProcessEnv;
}

export interface SkimMcpServer {
  server: McpServer;
  /** Resolves once no tool call is running. */
  idle(): Promise<void>;
}

export async function createMcpServer(opts: McpOptions): Promise<SkimMcpServer> {
  const ws = await Workspace.open(opts.root);
  const log = opts.log ?? stderrLog().info;
  const server = new McpServer({ name: 'skim', version: VERSION });
  // One connection is one session: what it was shown, it need not be shown again unchanged. With
  // a shared store (SKIM_SESSION_STORE) and a named session, the session is that one, read by read.
  const session = new SessionMemory();
  const env = opts.env ?? process.env;
  const shared = opts.session !== undefined && env.SKIM_SESSION_STORE?.trim() ? opts.session : undefined;
  // The notes after an answer are part of the tool result and move the tail a head+tail cut shows:
  // only its head counts as shown (as for the CLI); a read the client would cut is fitted to the
  // whole limit, one it shows whole is not.
  const spec = opts.outputLimit;
  const limitFor = (code: string) => (spec ? { outputLimit: limitAfter(spec, 0), fitChars: fitCharsFor(spec, code.length) } : {});
  /** The agent said its context was compacted: the next read of a shared session forgets first. */
  let forgetShared = false;
  const prune: PruneFn = async (req) => {
    if (shared === undefined) return opts.prune({ ...req, session, ...limitFor(req.code) });
    const read = await beginSessionRead(shared, (msg) => log(`skim mcp: ${msg}`), env);
    if (!read) return opts.prune({ ...req, ...limitFor(req.code) });
    try {
      if (forgetShared) read.memory.forget();
      forgetShared = false;
      const result = await opts.prune({ ...req, session: read.memory, ...limitFor(req.code) });
      await read.commit();
      return result;
    } catch (err) {
      await read.abort();
      throw err;
    }
  };
  const tool = { remembers: true, log };
  /** The agent says its context was compacted: the session forgets what it was shown. */
  const forgetting = (compacted: boolean | undefined) => {
    if (compacted) session.forget();
    if (compacted && shared !== undefined) forgetShared = true;
    return tool;
  };

  /** The one translation of errors for MCP: every error is a tool error (isError) the agent reads; one that is not a SkimError is logged too. */
  let running = 0;
  const run = async (tool: string, work: () => Promise<string>) => {
    running++;
    try {
      return { content: [{ type: 'text' as const, text: await work() }] };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!(err instanceof SkimError)) log(`skim mcp: ${tool} failed: ${message}`);
      return { content: [{ type: 'text' as const, text: `Error: ${message}` }], isError: true };
    } finally {
      running--;
    }
  };

  server.registerTool(
    'read_file',
    {
      title: 'Read file (pruned to a question)',
      description: READ_FILE_DESCRIPTION,
      inputSchema: {
        path: z.string().describe('File path relative to the workspace root (or absolute inside it).'),
        context_focus_question: REQUEST_FIELDS.query.describe(QUESTION_HELP),
        offset: FIELD_RULES.lineNumber.optional().describe('First line to show, 1-based (default 1).'),
        limit: z.number().int().min(1).optional().describe(`Number of lines to show (default ${DEFAULT_LIMIT}).`),
        lines: z.string().optional().describe('A range to show, as markers name it: "120-156" (instead of offset/limit).'),
        max_chars: REQUEST_FIELDS.maxChars.describe(
          'Show the whole file (or window) pruned to at most this many characters, the lines that serve the question first.',
        ),
        context_compacted: z.boolean().optional().describe(COMPACTED_HELP),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ context_compacted, ...args }) => run('read_file', () => readFileTool(ws, prune, args, forgetting(context_compacted))),
  );

  server.registerTool(
    'grep',
    {
      title: 'Search files (pruned to a question)',
      description: GREP_DESCRIPTION,
      inputSchema: {
        pattern: z
          .string()
          .describe(
            'Regular expression (RE2 syntax, as grep -E / ripgrep), matched against each line, e.g. "def \\w+_proxy", "get_records|clear" or "proxies\\["',
          ),
        path: z.string().optional().describe('File or directory to search, relative to the workspace root (default: all of it).'),
        glob: z.string().optional().describe('Only search files whose path matches this glob, e.g. "*.py" or "src/**/*.ts".'),
        context_focus_question: REQUEST_FIELDS.query.describe(QUESTION_HELP),
        context_compacted: z.boolean().optional().describe(COMPACTED_HELP),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ context_compacted, ...args }) => run('grep', () => grepTool(ws, prune, args, forgetting(context_compacted))),
  );

  const disk = opts.session ? { id: opts.session, read: diskOutputs(opts.session, log, env) } : undefined;
  server.registerTool(
    'show_output',
    {
      title: 'Show omitted lines of a command output',
      description: SHOW_OUTPUT_DESCRIPTION,
      inputSchema: {
        handle: z.string().describe('The handle a marker names, with its range or without: "3fa2c1d9e0:15-226" or "3fa2c1d9e0".'),
        lines: z.string().optional().describe('A range to show, "15-226" (instead of one in handle).'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => run('show_output', () => showOutputTool(session.outputs, disk, args)),
  );

  log(`skim mcp: serving read_file, grep and show_output for ${ws.root}${opts.session ? ` (outputs of session ${opts.session})` : ''}`);
  const idle = async () => {
    while (running > 0) await new Promise((r) => setTimeout(r, 20));
  };
  return { server, idle };
}

/** Serve over stdio until the client disconnects. */
export async function runStdioServer(opts: McpOptions): Promise<void> {
  // stdout is the protocol: a stray console.log anywhere in the process would corrupt it.
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  const { server, idle } = await createMcpServer(opts);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  await server.connect(transport);
  // When the client closes our stdin, let calls in flight answer, then end the session.
  process.stdin.once('end', () => {
    void idle().then(() => server.close());
  });
  await closed;
}
