/**
 * `skim mcp [--root DIR] [--session ID]`: MCP server over stdio with read_file and grep tools
 * confined to DIR, and show_output for the command outputs a session kept.
 * stdout carries the protocol; logs go to stderr.
 */
import type { Command } from 'commander';
import { action, cliIO, cliLog, prunerFor, scorerOptions } from '../io.js';

interface McpFlags {
  root: string;
  session?: string;
  scorer?: string;
  model?: string;
}

export function registerMcp(program: Command): void {
  const command = program
    .command('mcp')
    .description("MCP server on stdio: read_file and grep tools, pruned to the agent's question, confined to --root; show_output")
    .option('--root <dir>', 'workspace root the tools may read', '.')
    .option('--session <id>', 'show_output also finds the outputs skim run / skim out kept in this session (default: $SKIM_SESSION)');
  scorerOptions(command).action(action(mcpCommand));
}

async function mcpCommand(flags: McpFlags): Promise<void> {
  const { runStdioServer } = await import('../../mcp/server.js');
  const { outputLimitOf } = await import('../session.js');
  const pruner = prunerFor(flags);
  const { env } = cliIO();
  const logger = cliLog();
  const session = flags.session ?? env.SKIM_SESSION;
  await runStdioServer({
    root: flags.root,
    prune: (req) => pruner.prune(req),
    session: session?.trim() ? session : undefined,
    outputLimit: outputLimitOf(env),
    env,
    // through the command's logger: its stderr, debug detail with --verbose
    log: logger.info,
  });
}
