/**
 * The example outputs in README.md and docs/agents.md are what the commands print today
 * (regenerate them with `npx tsx scripts/doc-examples.ts`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCUMENTS, regenerate, shellWords } from '../../scripts/doc-examples.js';

const ROOT = join(__dirname, '../..');

describe('documented examples', () => {
  it.each(DOCUMENTS)(
    '%s shows what its commands print (npx tsx scripts/doc-examples.ts)',
    (doc) => {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      expect(text).toContain('<!-- example: skim ');
      expect(regenerate(text)).toBe(text);
    },
    60_000,
  );

  it('splits commands as a shell would for the quotes used', () => {
    expect(shellWords(`skim cat a.py --focus "How does x \\"work\\"?" -f 'a b'`)).toEqual([
      'skim',
      'cat',
      'a.py',
      '--focus',
      'How does x "work"?',
      '-f',
      'a b',
    ]);
  });
});
