/**
 * `skim mcp [--root DIR]`: MCP server over stdio with read_file and grep tools confined to DIR.
 * stdout carries the protocol; logs go to stderr.
 */
import type { Command } from 'commander';
import { SkimError } from '../../core/errors.js';
import { action, prunerFor } from '../io.js';

interface McpFlags {
  root: string;
  scorer?: string;
  model?: string;
}

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description("MCP server on stdio: read_file and grep tools, pruned to the agent's question, confined to --root")
    .option('--root <dir>', 'workspace root the tools may read', '.')
    .option('--scorer <name>', 'learned (default) or heuristic')
    .option('--model <dir>', 'model weights directory')
    .action(action(mcpCommand));
}

async function mcpCommand(flags: McpFlags): Promise<void> {
  const [{ runStdioServer }, { WorkspaceError }] = await Promise.all([import('../../mcp/server.js'), import('../../mcp/workspace.js')]);
  const pruner = prunerFor(flags);
  try {
    await runStdioServer({ root: flags.root, prune: (req) => pruner.prune(req) });
  } catch (err) {
    if (err instanceof WorkspaceError) throw new SkimError(err.message, 'ENOINPUT');
    throw err;
  }
}
