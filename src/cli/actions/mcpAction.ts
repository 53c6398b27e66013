/**
 * `skim mcp [--root DIR]`: MCP server over stdio with read_file and grep tools confined to DIR.
 */
import type { Command } from 'commander';
import { createPruner } from '../../index.js';
import { runStdioServer } from '../../mcp/server.js';
import { WorkspaceError } from '../../mcp/workspace.js';
import { SkimError } from '../../core/errors.js';

interface McpOptions {
  root: string;
  scorer: string;
  modelDir?: string;
}

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('MCP server on stdio: read_file and grep tools, pruned to the agent\'s question, confined to --root')
    .option('--root <dir>', 'workspace root the tools may read (default: the current directory)', '.')
    .option('--scorer <name>', 'heuristic or learned', 'learned')
    .option('--model-dir <dir>', 'directory with learned weights (default: the shipped model)')
    .action(async (opts: McpOptions) => {
      const pruner = createPruner({
        scorer: opts.scorer === 'heuristic' ? 'heuristic' : 'learned',
        modelDir: opts.modelDir,
      });
      try {
        await runStdioServer({ root: opts.root, prune: (req) => pruner.prune(req) });
      } catch (err) {
        if (err instanceof WorkspaceError) throw new SkimError(err.message, 'ENOINPUT');
        throw err;
      }
    });
}
