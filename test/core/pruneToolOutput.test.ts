/** One entry for whatever a tool printed: a read of one file goes to the code pipeline, unless the text is not all the file. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { droppedNote } from '../../src/core/output/dropped.js';
import { pruneToolOutput } from '../../src/core/pruneToolOutput.js';

const logging = readFileSync(path.resolve(__dirname, '../../examples/logging.py'), 'utf8');
const query = 'Where are the caplog records replaced instead of cleared?';

describe('pruneToolOutput', () => {
  it('prunes `cat F` as a read of F, with its line numbers', async () => {
    const r = await pruneToolOutput({ text: logging, command: 'cat src/logging.py', query });
    expect(r.via).toBe('read');
  });

  it('prunes a capture whose middle was dropped as an output: its lines are not the file’s, and the note stays', async () => {
    const lines = logging.split(/(?<=\n)/);
    const note = droppedNote(1_234_567, '16 MiB');
    const text = `${lines.slice(0, 400).join('')}${note}\n${lines.slice(600).join('')}`;
    const r = await pruneToolOutput({ text, command: 'cat src/logging.py', query, partial: true });
    expect(r.via).toBe('output');
    expect(r.result.text.split('\n')).toContain(note);
  });
});
