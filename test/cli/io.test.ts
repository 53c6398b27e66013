/**
 * The CLI's one parser of numeric option values: a rule (a request field's, or intAtLeast/numberIn)
 * and a usage error otherwise. A run's terminals: help's width and colours.
 */
import { Readable, Writable } from 'node:stream';
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/cli.js';
import { type CliIO, intAtLeast, numberIn, numberOption } from '../../src/cli/io.js';
import { type CommandTable, runProgram } from '../../src/cli/program.js';
import { FIELD_RULES } from '../../src/core/request.js';

const bad = (parse: (v: string) => number, value: string): string => {
  try {
    parse(value);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidArgumentError);
    return (err as Error).message;
  }
  throw new Error(`${value} was accepted`);
};

describe('numberOption', () => {
  it('takes what the rule takes', () => {
    expect(numberOption(FIELD_RULES.ratio)('4')).toBe(4);
    expect(numberOption(FIELD_RULES.unit)('0.25')).toBe(0.25);
    expect(numberOption(intAtLeast(0))('0')).toBe(0);
    expect(numberOption(numberIn(0, 8))('8')).toBe(8);
  });

  it('refuses anything else with a message, never NaN', () => {
    for (const v of ['abc', '', ' ', 'NaN', '1e', '0x']) expect(bad(numberOption(numberIn(0)), v)).toBe('not a number');
    expect(bad(numberOption(FIELD_RULES.ratio), '0.5')).toBe('must be >= 1');
    expect(bad(numberOption(FIELD_RULES.unit), '2')).toBe('must be <= 1');
    expect(bad(numberOption(intAtLeast(1)), '1.5')).toBe('must be an integer');
    expect(bad(numberOption(numberIn(0, 8)), 'Infinity')).toMatch(/must be/);
    // decimal only: Number() reads these as 16, 3, 7 and 0
    for (const v of ['0x10', '0b11', '0o7', '0x']) expect(bad(numberOption(numberIn(0)), v)).toBe('not a number');
    expect(numberOption(numberIn(0))('1e3')).toBe(1000);
    expect(numberOption(numberIn(0))(' .5')).toBe(0.5);
    expect(numberOption(numberIn(0))('+2')).toBe(2);
  });
});

describe("a run's terminals (CliIO.terminals: the daemon's client's)", () => {
  const RED = '\x1b[31mred\x1b[39m';
  /** A sub-command whose help is coloured, beside the real ones. */
  const commands: CommandTable = { ...COMMANDS, paint: async () => (program) => void program.command('paint').description(`a ${RED} word`) };

  /** `skim ARGS` in-process with streams that are pipes and the given terminals behind them. */
  async function helpOf(args: string[], terminals: CliIO['terminals'], env: NodeJS.ProcessEnv = {}): Promise<string> {
    const out: Buffer[] = [];
    const sink = () =>
      new Writable({
        write: (c: Buffer, _e, done) => {
          out.push(c);
          done();
        },
      });
    const io: CliIO = { stdin: Readable.from([]), stdout: sink(), stderr: sink(), env, terminals };
    await runProgram(['node', 'skim', ...args, '--help'], commands, io);
    expect(io.exitCode).toBe(0);
    return Buffer.concat(out).toString();
  }
  const widest = (text: string) => Math.max(...text.split('\n').map((l) => l.length));
  const plain = { hasColors: false };

  it('help wraps to the width of the terminal behind stdout', async () => {
    expect(widest(await helpOf(['prune'], { stdout: { columns: 66, hasColors: false }, stderr: plain }))).toBeLessThanOrEqual(66);
    // the same streams without a terminal behind them: commander's default width (80)
    expect(widest(await helpOf(['prune'], undefined))).toBeGreaterThan(66);
  });

  it("help keeps its colours on a terminal that has them, unless the run's environment says otherwise", async () => {
    const coloured = { stdout: { columns: 80, hasColors: true }, stderr: plain };
    expect(await helpOf(['paint'], coloured)).toContain(RED);
    expect(await helpOf(['paint'], coloured, { NO_COLOR: '1' })).not.toContain('\x1b[');
    expect(await helpOf(['paint'], { stdout: plain, stderr: plain })).not.toContain('\x1b[');
    expect(await helpOf(['paint'], { stdout: plain, stderr: plain }, { FORCE_COLOR: '1' })).toContain(RED);
    // no terminal given: the streams' own (pipes here: no colours)
    expect(await helpOf(['paint'], undefined)).not.toContain('\x1b[');
  });
});
