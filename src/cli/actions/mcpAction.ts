/**
 * `skim mcp [--root DIR]`: MCP server over stdio with read_file and grep tools confined to DIR.
 * stdout carries the protocol; logs go to stderr.
 */
import type { Command } from 'commander';
import { action, prunerFor, scorerOptions } from '../io.js';

interface McpFlags {
  root: string;
  scorer?: string;
  model?: string;
}

export function registerMcp(program: Command): void {
  const command = program
    .command('mcp')
    .description("MCP server on stdio: read_file and grep tools, pruned to the agent's question, confined to --root")
    .option('--root <dir>', 'workspace root the tools may read', '.');
  scorerOptions(command).action(action(mcpCommand));
}

async function mcpCommand(flags: McpFlags): Promise<void> {
  const { runStdioServer } = await import('../../mcp/server.js');
  const { outputLimitOf } = await import('../session.js');
  const pruner = prunerFor(flags);
  await runStdioServer({ root: flags.root, prune: (req) => pruner.prune(req), outputLimit: outputLimitOf() });
}
