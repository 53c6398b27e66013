/** makeDirectory: parents made one level at a time; a directory under /proc fails at once instead of never returning. */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirectory } from '../../src/tools/makeDirectory.js';

const tmp = mkdtempSync(join(tmpdir(), 'skim-mkdir-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('makeDirectory', () => {
  it('makes missing parents with the mode asked, and accepts a directory that exists', async () => {
    const dir = join(tmp, 'a', 'b', 'c');
    await makeDirectory(dir, 0o700);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    await makeDirectory(dir, 0o700);
  });

  it('a file in the way is a clear error', async () => {
    writeFileSync(join(tmp, 'file'), 'x');
    await expect(makeDirectory(join(tmp, 'file', 'sub'))).rejects.toThrow(/is not a directory/);
  });

  it.runIf(process.platform === 'linux')('a directory under /proc is an error at once (recursive mkdir never returns there)', async () => {
    await expect(makeDirectory('/proc/skim-no-such/sessions', 0o700)).rejects.toThrow(
      /cannot create \/proc\/skim-no-such\/sessions: ENOENT at \/proc\/skim-no-such/,
    );
  });
});
